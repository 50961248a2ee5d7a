#!/usr/bin/env python3
# Where the heap allocation of a run goes: sums the weights of jdk.ObjectAllocationSample events (JFR's estimate of the
# bytes allocated) in the second half of each recording (the steady state, after start-up and warm-up), by class and
# by allocation site (the top frames plus the first io.nexar frame). Usage, for a 4-rank 8-byte allreduce:
#
#   NEXAR_WORKER_JAVA_OPTS="-XX:StartFlightRecording=filename=/tmp/a-%p.jfr,settings=profile" \
#       ./nexar bench -n 4 --op allreduce --sizes 8 --warmup 5000 --iters 20000
#   scripts/jfr-alloc.py /tmp/a-*.jfr
#
# Environment: JAVA_HOME (its bin/jfr), DEPTH (top frames per site, 3), TOP (sites shown, 40), FRAC (share of each
# recording skipped at its start, 0.5). Shares are of the sampled total; compare sites between runs, not bytes.
import collections, json, os, subprocess, sys

jfr = os.path.join(os.environ.get('JAVA_HOME', '/usr/lib/jvm/temurin-25-jdk-amd64'), 'bin', 'jfr')
depth = int(os.environ.get('DEPTH', '3'))
frac = float(os.environ.get('FRAC', '0.5'))
by_site, by_class, total = collections.Counter(), collections.Counter(), 0
for f in sys.argv[1:]:
    out = subprocess.run([jfr, 'print', '--json', '--stack-depth', '20', '--events', 'jdk.ObjectAllocationSample', f],
                         capture_output=True, text=True, check=True).stdout
    events = json.loads(out)['recording']['events']
    times = sorted(e['values']['startTime'] for e in events)
    cut = times[int(len(times) * frac)] if times else ''
    for e in events:
        v = e['values']
        if v['startTime'] < cut:
            continue
        cls = v['objectClass']['name'] if v.get('objectClass') else '?'
        frames = [(fr['method']['type']['name'],
                   '%s.%s:%s' % (fr['method']['type']['name'].split('/')[-1], fr['method']['name'], fr['lineNumber']))
                  for fr in (v.get('stackTrace') or {}).get('frames', [])]
        site = [name for _, name in frames[:depth]]
        own = next((name for t, name in frames if t.startswith('io/nexar')), '-')
        if own not in site:
            site.append('..' + own)
        by_site[(cls, ' < '.join(site))] += v['weight']
        by_class[cls] += v['weight']
        total += v['weight']
print('sampled weight (bytes, estimated):', total)
for cls, w in by_class.most_common(20):
    print('%5.1f%% %s' % (100 * w / total, cls))
print()
for (cls, site), w in by_site.most_common(int(os.environ.get('TOP', '40'))):
    print('%5.1f%% %s  %s' % (100 * w / total, cls, site))
