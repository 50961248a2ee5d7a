/**
 * A modular application of nexar, as a user writes one: it requires only {@code io.nexar} and compiles against its
 * exported packages. The QUIC transport is not named here: on the module path the service binding of
 * {@code uses io.nexar.spi.TransportProvider} brings it in. {@code ModulePathIT} runs it across processes.
 */
module io.nexar.it.consumer {
    requires io.nexar;
}
