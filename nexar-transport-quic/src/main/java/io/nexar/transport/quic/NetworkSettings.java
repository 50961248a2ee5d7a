package io.nexar.transport.quic;

import io.nexar.ConfigKey;
import io.nexar.InvalidConfigurationException;
import io.nexar.NexarConfig;
import io.nexar.transport.quic.security.JoinString;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;

/**
 * Where a joining member listens and what it publishes, from settings {@code bind.address},
 * {@code advertise.address} and {@code port.range} (docs/config.md, docs/launching.md "Networks").
 *
 * @param bindHost the address the listeners bind: {@code bind.address}, or with {@code auto} the seed's address when
 *        it is a loopback one, else the wildcard of the seed's address family (the IPv4 wildcard while the seed's
 *        name does not resolve yet: enrolment retries it until the formation deadline)
 * @param advertiseHost the address published in the peer table, or null to publish the bound one (a wildcard is
 *        then replaced by the seed with the address this member enrols from)
 * @param portRangeSetting the name {@code port.range} was given under, for errors
 */
record NetworkSettings(InetAddress bindHost, InetAddress advertiseHost, String portRangeSetting) {

    /**
     * Resolves the settings of {@code config} for a join of the seed of {@code join}.
     *
     * @throws InvalidConfigurationException naming the setting if {@code bind.address} does not resolve to an
     *         address of this host (or a wildcard), or {@code advertise.address} does not resolve or is a wildcard
     */
    static NetworkSettings of(NexarConfig config, JoinString join) {
        String bind = config.bindAddress();
        InetAddress bindHost = "auto".equals(bind) ? autoBindHost(join) : localAddress(config, bind);
        String advertise = config.advertiseAddress();
        InetAddress advertiseHost = null;
        if (!"auto".equals(advertise)) {
            String setting = settingName(config, ConfigKey.ADVERTISE_ADDRESS);
            try {
                advertiseHost = InetAddress.getByName(advertise);
            } catch (UnknownHostException e) {
                throw new InvalidConfigurationException(setting, advertise, "an address the other members can dial;"
                        + " the name does not resolve here");
            }
            if (advertiseHost.isAnyLocalAddress()) {
                throw new InvalidConfigurationException(setting, advertise, "an address the other members can dial,"
                        + " not a wildcard");
            }
        }
        return new NetworkSettings(bindHost, advertiseHost, settingName(config, ConfigKey.PORT_RANGE));
    }

    /** {@code bound}'s port at the advertised address, or {@code bound} itself without one. */
    InetSocketAddress advertised(InetSocketAddress bound) {
        return advertiseHost == null ? bound : new InetSocketAddress(advertiseHost, bound.getPort());
    }

    /** The address {@code bind.address} names, checked to be this host's (or a wildcard). */
    private static InetAddress localAddress(NexarConfig config, String text) {
        String setting = settingName(config, ConfigKey.BIND_ADDRESS);
        InetAddress host;
        try {
            host = InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new InvalidConfigurationException(setting, text, "an address of this host; the name does not"
                    + " resolve");
        }
        boolean local;
        try {
            local = host.isAnyLocalAddress() || host.isLoopbackAddress()
                    || NetworkInterface.getByInetAddress(host) != null;
        } catch (IOException e) {
            local = true; // the interfaces cannot be listed: let the bind say whether it works
        }
        if (!local) {
            throw new InvalidConfigurationException(setting, text, "an address of one of this host's interfaces"
                    + " (or 0.0.0.0 or :: for all); " + host.getHostAddress() + " is not one; to publish another"
                    + " address (NAT, a pod's service), set " + ConfigKey.ADVERTISE_ADDRESS.key());
        }
        return host;
    }

    /** {@code bind.address=auto}, as described at {@link #bindHost()}. */
    private static InetAddress autoBindHost(JoinString join) {
        try {
            InetAddress seed = InetAddress.getByName(join.host());
            if (seed.isLoopbackAddress()) {
                return seed;
            }
            return InetAddress.getByName(seed instanceof Inet6Address ? "::" : "0.0.0.0");
        } catch (UnknownHostException e) {
            try {
                return InetAddress.getByAddress(new byte[4]);
            } catch (UnknownHostException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
    }

    /** The name the user gave {@code key} under: its environment variable, system property or key. */
    static String settingName(NexarConfig config, ConfigKey key) {
        return switch (config.source(key)) {
            case ENVIRONMENT -> key.envVar();
            case SYSTEM_PROPERTY -> key.systemProperty();
            case DEFAULT, BUILDER -> key.key();
        };
    }
}
