# sass_mix.py A.csv B.csv - two ncu source pages (--page source --csv --print-source sass):
# executed warp instructions in all, and the opcodes B executes more of than A, most first
import csv, sys, collections
def load(p):
    rows=list(csv.reader(open(p)))
    hdr=rows[1]; ia=hdr.index("Source"); ie=hdr.index("Instructions Executed")
    out=[]
    for r in rows[2:]:
        if len(r)<=ie: continue
        try: n=int(r[ie].replace(',',''))
        except: continue
        out.append((r[0], r[ia].strip(), n))
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
def mix(x):
    c=collections.Counter()
    for _,s,n in x: c[s.split()[0] if not s.startswith('@') else s.split()[1]]+=n
    return c
ta=sum(n for *_,n in a); tb=sum(n for *_,n in b)
print("total", ta, tb, tb/ta, "static", len(a), len(b))
ma, mb = mix(a), mix(b)
d=sorted(((mb[k]-ma[k],k) for k in set(ma)|set(mb)), reverse=True)
for v,k in d[:25]: print(f"{k:10s} {ma[k]:>10} {mb[k]:>10} {v:>+10}")
