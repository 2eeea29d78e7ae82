#!/bin/sh
# Open MPI's rsh launch agent for the emulated hosts of share/nodes/nodes.py (--mca plm_rsh_agent):
# instead of ssh, run the command in the host's network namespace, inside a new UTS namespace that
# carries the host's name (so that Open MPI, MPI_COMM_TYPE_SHARED and PETSc see one host per
# namespace). Like ssh, the command words are joined and run by a shell.
#
#   agent.sh <host> <command words...>      host: an emulated host, <prefix>-n<i> (prefix: $AIJHN_PREFIX, default aijhn)
#
# Refuses every other host name: the agent never reaches a real machine.
set -eu
prefix=${AIJHN_PREFIX:-aijhn}
host=${1:?usage: agent.sh host command...}
shift
case "$host" in
  "$prefix"-n[0-9]|"$prefix"-n[0-9][0-9]) ;;
  *) echo "agent.sh: refusing host '$host': not an emulated host ($prefix-n<i>)" >&2; exit 255 ;;
esac
if [ ! -e "/run/netns/$host" ]; then
  echo "agent.sh: no emulated host '$host' (no network namespace /run/netns/$host): run share/nodes/nodes.py up" >&2
  exit 255
fi
exec ip netns exec "$host" unshare --uts /bin/sh -c "hostname '$host' && $*"
