#!/usr/bin/env python3
"""rediff.py BIN --run RUNDIR [--seeds A-B] [-j N] [--out FILE]

Run from anywhere; RUNDIR is the --out folder of `karpdiff compare`.
Re-solve a stored `karpdiff compare --out RUNDIR` run with nodeplan binary BIN.
Plans equal to the stored nodeplan plan (the same pods on the same types, zones,
capacity types and prices) reuse the stored result; a changed
plan is checked with `karpdiff check` (KARPDIFF env, default /tmp/karpdiff).
Prints per-seed changes and the totals: fewer / costlier / refused and $/h sum."""
import json, os, subprocess, sys, argparse, concurrent.futures as cf

ap = argparse.ArgumentParser()
ap.add_argument('bin'); ap.add_argument('--run', required=True)
ap.add_argument('--seeds', default=''); ap.add_argument('-j', type=int, default=1)
ap.add_argument('--out', default='')
a = ap.parse_args()
KD = os.environ.get('KARPDIFF', '/tmp/karpdiff')
res = {}
for line in open(os.path.join(a.run, 'results.jsonl')):
    r = json.loads(line); res[r['seed']] = r
seeds = sorted(res)
if a.seeds:
    lo, hi = map(int, a.seeds.split('-')); seeds = [s for s in seeds if lo <= s <= hi]

def norm(b):
    try:
        j = json.loads(b)
    except Exception:
        return None
    cl = sorted((tuple(sorted(c.get('pods') or [])), c.get('instanceType'), c.get('zone'), c.get('capacityType'), round(c.get('price', 0), 6)) for c in (j.get('nodeClaims') or []))
    ex = sorted((e.get('name'), tuple(sorted(e.get('pods') or []))) for e in (j.get('existingNodes') or []))
    return (cl, ex, round(j['summary']['pricePerHour'], 6))

def one(seed):
    r = res[seed]; d = os.path.join(a.run, 'seed-%06d' % seed)
    if r.get('error') or r['karpenter'].get('error') or r['karpenter'].get('crash'):
        return seed, None
    p = subprocess.run([a.bin, 'solve', '-f', d, '--catalog', os.path.join(d, 'catalog.json'), '-o', 'json'], capture_output=True)
    old = open(os.path.join(d, 'nodeplan-plan.json'), 'rb').read()
    k = r['karpenter']
    if p.returncode not in (0, 1) and not p.stdout:
        return seed, dict(err=p.stderr.decode()[:300], k=k, old=r['nodeplan'])
    if norm(p.stdout) == norm(old):
        n = r['nodeplan']; return seed, dict(bound=n['bound'], refused=n['refused'], order=n.get('orderBound', 0), price=n['pricePerHour'], k=k, old=n, same=True)
    pf = '/tmp/rediff-%d-%d.json' % (os.getpid(), seed)
    open(pf, 'wb').write(p.stdout)
    c = subprocess.run([KD, 'check', '-f', d, '--catalog', os.path.join(d, 'catalog.json'), '--plan', pf], capture_output=True, text=True)
    last = [l for l in c.stdout.splitlines() if l.startswith('placed ')]
    price = json.loads(p.stdout)['summary']['pricePerHour']
    os.unlink(pf)
    if not last:
        return seed, dict(err='check: ' + c.stdout[-300:] + c.stderr[-300:], k=k, old=r['nodeplan'])
    w = last[-1].replace(',', '').split()
    order = int(w[-1]) if 'order only' in last[-1] else 0
    return seed, dict(bound=int(w[3]), refused=int(w[5]), order=order, price=price, k=k, old=r['nodeplan'], same=False)

def cls(bound, refused, price, k, order=0):
    c = []
    if refused: c.append('refused')
    if order: c.append('nodeplan-order')
    if bound < k['bound']:
        c.append('fewer')
        if bound - order >= k['bound'] - k.get('orderBound', 0): c.append('fewer-order-only')
    elif bound == k['bound'] and price > k['pricePerHour'] * 1.0001 + 1e-5:
        c.append('costlier')
        if bound - order > k['bound'] - k.get('orderBound', 0): c.append('costlier-order-only')
    return c

tot = {'fewer': [], 'fewer-order-only': [], 'costlier': [], 'costlier-order-only': [], 'refused': [], 'nodeplan-order': [], 'err': []}; psum = 0.0; osum = 0.0; changed = 0
with cf.ThreadPoolExecutor(a.j) as ex:
    outs = list(ex.map(one, seeds))
lines = []
for seed, o in outs:
    if o is None: continue
    if 'err' in o:
        tot['err'].append(seed); lines.append('%d ERROR %s' % (seed, o['err'])); continue
    old = o['old']; k = o['k']
    oc = cls(old['bound'], old['refused'], old['pricePerHour'], k, old.get('orderBound', 0))
    nc = cls(o['bound'], o['refused'], o['price'], k, o['order'])
    for c in nc: tot[c].append(seed)
    psum += o['price']; osum += old['pricePerHour']
    if not o['same']:
        changed += 1
        lines.append('%d bound %d->%d refused %d->%d $%.4f->$%.4f (karpenter %d $%.4f) %s -> %s' % (
            seed, old['bound'], o['bound'], old['refused'], o['refused'], old['pricePerHour'], o['price'], k['bound'], k['pricePerHour'], ','.join(oc) or '-', ','.join(nc) or '-'))
summary = 'seeds %d changed %d | fewer %d %s (Karpenter\'s extra pods bind only in a favourable order: %d %s) | costlier %d %s (Karpenter\'s as many only in a favourable order: %d %s) | refused %d %s | nodeplan order-bound %d %s | errors %d %s | $/h %.2f -> %.2f' % (
    len(outs), changed, len(tot['fewer']), tot['fewer'], len(tot['fewer-order-only']), tot['fewer-order-only'], len(tot['costlier']), tot['costlier'], len(tot['costlier-order-only']), tot['costlier-order-only'],
    len(tot['refused']), tot['refused'], len(tot['nodeplan-order']), tot['nodeplan-order'], len(tot['err']), tot['err'], osum, psum)
text = '\n'.join(lines + [summary])
print(text)
if a.out: open(a.out, 'w').write(text + '\n')
