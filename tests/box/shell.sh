#!/usr/bin/env bash
# tests/box/shell.sh [NODE [COMMAND...]]: a shell (or COMMAND) inside a running box node, as root, in all of
# its namespaces; NODE is any part of its instance id or address (`i-0abc`, `10.0.0.5`). Without NODE it
# lists the nodes. The box keeps running past its tests with BOX_HOLD=1 (Ctrl-C stops and removes it).
set -euo pipefail
nodes=()
for cgroup in /sys/fs/cgroup/pids/ccbox*/box-*; do [ -d "$cgroup" ] && nodes+=("$cgroup"); done
if [ "${#nodes[@]}" -eq 0 ]; then
  echo "no box is running" >&2
  exit 1
fi
# leader CGROUP: the node's init, pid 1 in its own PID namespace.
leader() {
  local pid
  while read -r pid; do
    if grep -qE '^NSpid:\s+[0-9]+\s+1$' "/proc/$pid/status" 2>/dev/null; then
      echo "$pid"
      return
    fi
  done <"$1/cgroup.procs"
  return 1
}
if [ "$#" -eq 0 ]; then
  for cgroup in "${nodes[@]}"; do
    pid=$(leader "$cgroup")
    echo "${cgroup##*/box-} $(nsenter -t "$pid" -n ip -4 -br addr show host0 | awk '{print $3}') $(nsenter -t "$pid" -u hostname)"
  done
  exit 0
fi
want=$1
shift
for cgroup in "${nodes[@]}"; do
  pid=$(leader "$cgroup")
  address=$(nsenter -t "$pid" -n ip -4 -br addr show host0 | awk '{print $3}')
  if [[ ${cgroup##*/box-} == *"$want"* || $address == "$want/"* ]]; then
    exec nsenter -t "$pid" -m -u -i -n -p -- "${@:-/bin/bash}"
  fi
done
echo "no box node matches $want" >&2
exit 1
