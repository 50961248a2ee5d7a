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
        join-*|peer-table|elastic-*|grow-*|admission*|renew-*|renewed)
            hex2bin "$f" > "$core/enrolmentCodec/golden-$name"
            hex2bin "$f" > "$stream/golden-$name" ;;
    esac
done
# Types without a golden fixture, encoded by MessageCodec (the records named in each comment):
extra() { # name hex [enrolment]
    for d in "$core/messageCodec" "$core/frameDecoder" ${3:+"$core/enrolmentCodec" "$stream"}; do
        echo "$2" | xxd -r -p > "$d/golden-$1"
    done
}
# Agree(0, 1, PROPOSE, failed [2], acceptedBallot [2], value [2]); Agree(1, 2, DECIDE, [1 3], null, [1 3])
extra agree 1e000000130000000000010000000101010001000100020000000200000002000000
extra agree-decide 2200000013000100000002000000040002000000020001000000030000000100000003000000
# JoinRequest(proof 0x11 x 32, -1, csr 3003020100, 10.0.0.5:7401, [::1]:7402, elastic)
extra elastic-join-request 4700000045001111111111111111111111111111111111111111111111111111111111111111ffffffff05003003020100040a000005e91c0600000000000000000000000000000001ea1c yes
# GrowPoll(proof 0x11 x 32, max 8, communicator 0, generation 1, members [0 1 2 3])
extra grow-poll 42000000460011111111111111111111111111111111111111111111111111111111111111110800000000000000010000000400000000000000010000000200000003000000 yes
# Admission(0, 1, [0 1 2 3], [Entry(4, "member-4", 10.0.0.5:7401, [::1]:7402)])
extra admission 490000004700000000000100000004000000000000000100000002000000030000000100000004000000086d656d6265722d34040a000005e91c0600000000000000000000000000000001ea1c yes
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
