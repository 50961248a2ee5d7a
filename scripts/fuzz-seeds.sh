#!/usr/bin/env bash
# Rebuilds the seed corpora of the fuzz targets (docs/testing.md, "Fuzzing") from the golden fixtures:
# nexar-core/src/test/resources/protocol/*.hex (one frame each, docs/protocol.md) and a few hand-written inputs.
# Seeds of findings (crash-*, timeout-*, regression-*) that Jazzer or a developer put beside them are kept.
# Usage: scripts/fuzz-seeds.sh   (from anywhere; needs xxd)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
golden=$root/nexar-core/src/test/resources/protocol
core=$root/nexar-core/src/test/resources/io/nexar/internal/protocol/ProtocolFuzzTestInputs
quic=$root/nexar-transport-quic/src/test/resources/io/nexar/transport/quic
sec=$quic/security/SecurityFuzzTestInputs
stream=$quic/formation/EnrolmentStreamFuzzTestInputs/enrolmentStream
desc=$quic/PeerDescriptorFuzzTestInputs/peerDescriptor

hex2bin() { sed 's/#.*//' "$1" | tr -d ' \t\n' | xxd -r -p; }

mkdir -p "$core"/{messageCodec,enrolmentCodec,frameDecoder,sparsePayload} "$sec"/{joinString,csr} "$stream" "$desc"
rm -f "$core"/*/golden-* "$sec"/joinString/golden-* "$stream"/golden-* "$desc"/golden-*

all=()
for f in "$golden"/*.hex; do
    name=$(basename "$f" .hex)
    all+=("$f")
    hex2bin "$f" > "$core/messageCodec/golden-$name"
    hex2bin "$f" > "$core/frameDecoder/golden-$name"
    case $name in
        join-*|peer-table|elastic-*|grow-*|admission*)
            hex2bin "$f" > "$core/enrolmentCodec/golden-$name"
            hex2bin "$f" > "$stream/golden-$name" ;;
    esac
done
# A stream of every golden frame back to back, and one frame cut short after the first.
for f in "${all[@]}"; do hex2bin "$f"; done > "$core/frameDecoder/golden-all"
{ hex2bin "$golden/hello.hex"; hex2bin "$golden/data.hex" | head -c 20; } > "$core/frameDecoder/golden-hello-then-cut"

# Compressed allReduce: [selector u8][count u32 LE][payload]; selector 1 = 4-byte elements, receiver expects the
# stated k. The payload is SparsePayloadTest's golden one: k 2, indices 3 and 9, F32 values 1.5 and -2.
echo '01 0a000000 02000000 03000000 09000000 0000c03f 000000c0' | xxd -r -p > "$core/sparsePayload/golden-k2-f32"
echo '02 00040000 01000000 ff030000 000000000000f03f' | xxd -r -p > "$core/sparsePayload/golden-k1-f64"
echo '00 00000000 00000000' | xxd -r -p > "$core/sparsePayload/golden-k0-f16"

# Join strings (JoinStringTest's shapes); the token is 32 zero bytes in base64url, the CA fingerprint made up.
fp=sha256:3f2a000000000000000000000000000000000000000000000000000000000000
tok=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
printf 'nexar://10.0.0.5:7400?token=%s&ca=%s' "$tok" "$fp" > "$sec/joinString/golden-ipv4"
printf 'nexar://[::1]:4567?token=%s&ca=%s' "$tok" "$fp" > "$sec/joinString/golden-ipv6"
printf 'nexar://seed.example:7400?ca=%s&token=%s' "$fp" "$tok" > "$sec/joinString/golden-host"

# A peer descriptor is one HELLO-style frame from the peer table; the enrolment stream gets the golden frames.
hex2bin "$golden/peer-table.hex" > "$desc/golden-peer-table"
# Certificate signing requests as a worker sends them (P-256, self-signed), DER; a fixed one is committed, since a
# new key differs on every run: this only rewrites it when missing.
[ -f "$sec/csr/golden-p256" ] || openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout /dev/null -subj /CN=member-1 -outform DER -out "$sec/csr/golden-p256" 2>/dev/null
echo "seeds written under $core and $quic"
