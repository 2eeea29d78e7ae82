#!/usr/bin/env bash
# Installs what the emulated hosts need (share/nodes/, make test-nodes), on Debian/Ubuntu, only when
# missing (a second run installs nothing):
#   iproute2 (ip, tc), util-linux (unshare), hostname, procps (sysctl)     the hosts and their links
# With the argument "slurm" (make test-slurm) also:
#   slurm-wlm (slurmctld, slurmd, sbatch, srun), munge                    a local SLURM on the hosts
# Services are not started by the packages here (Debian's policy-rc.d, or no init system); the
# scripts start the daemons they need inside the emulated hosts and end them.
set -euo pipefail
PKGS=(iproute2 util-linux hostname procps)
if [ "${1:-}" = "slurm" ]; then PKGS+=(slurm-wlm munge); fi
if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "nodes setup: not a Debian-like system: install ${PKGS[*]} yourself" >&2
  exit 1
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "nodes setup: all packages present (${PKGS[*]})"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "nodes setup: not root: ask an administrator to run apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "nodes setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "${missing[@]}" || { apt-get update -q && apt-get install -y -q "${missing[@]}"; }
