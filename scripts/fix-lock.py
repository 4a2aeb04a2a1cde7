# Put back the platform-bound optional entries of opencode-ai that npm drops from the lock when
# the registry lacks those platforms (docs/agents.md, "Installing the CLIs"): npm ci refuses the lock otherwise.
import json,sys
p=sys.argv[1]
lock=json.load(open(p))
pk=lock['packages']
plat={'opencode-darwin-arm64':(['darwin'],['arm64'],None),'opencode-darwin-x64':(['darwin'],['x64'],None),'opencode-darwin-x64-baseline':(['darwin'],['x64'],None),
'opencode-linux-arm64':(['linux'],['arm64'],['glibc']),'opencode-linux-arm64-musl':(['linux'],['arm64'],['musl']),'opencode-linux-x64-baseline-musl':(['linux'],['x64'],['musl']),
'opencode-linux-x64-musl':(['linux'],['x64'],['musl']),'opencode-windows-arm64':(['win32'],['arm64'],None),'opencode-windows-x64':(['win32'],['x64'],None),'opencode-windows-x64-baseline':(['win32'],['x64'],None)}
ver=pk['node_modules/opencode-ai']['version']
for name,(os_,cpu,libc) in plat.items():
    if 'node_modules/'+name in pk: continue
    e={"version":ver,"cpu":cpu,"dev":True,"license":"MIT","optional":True,"os":os_}
    if libc: e["libc"]=libc
    pk['node_modules/'+name]=e
lock['packages']=dict(sorted(pk.items(), key=lambda kv: (kv[0]!='', kv[0])))
json.dump(lock,open(p,'w'),indent=2)
open(p,'a').write('\n')
