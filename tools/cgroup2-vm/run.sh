#!/bin/bash
# Boot the throwaway cgroup-v2 VM (base.cpio from build.sh), run one command from /src, print
# its output, exit with its exit code.
#
# Usage: run.sh [--user] [--disk-tmp] [--src DIR] [--timeout SECONDS] [--accel auto|kvm|tcg] [--mem MIB]
#               [--env KEY=VALUE]... [--verbose] [--log FILE] -- COMMAND...
#   --user      run as uid 1000 (quest), /sys/fs/cgroup/work delegated to it; default root
#   --disk-tmp  /tmp on ext4 over a loop device instead of tmpfs (its page cache can be dropped)
#   --src DIR   tree laid at /src (default: this repository): tracked + untracked-not-ignored files,
#               without .git and .venv (plain `find` when DIR is no git work tree)
#   --timeout   seconds before qemu is killed (default 900; exit code 124 then)
#   --accel     auto (default: KVM where the CPU shows VMX/SVM, TCG if that fails or
#               elsewhere), kvm or tcg
#   --verbose   also print the boot's kernel and firmware lines
#   --log FILE  keep the whole raw console there
#   --append S  extra kernel command line (e.g. "loglevel=7" to see the whole boot)
# Exit code: the command's; 124 on timeout; 125 when the VM never reported one.
set -euo pipefail

VM=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$VM/../.." && pwd)  # the repository this folder is in
OUT=$VM/_build  # what build.sh makes (ignored by git)
USER_MODE=0
DISK_TMP=0
TIMEOUT=900
ACCEL=auto
MEM=4096
VERBOSE=0
LOG=""
APPEND=""
ENVS=()
while [ $# -gt 0 ]; do
  case $1 in
    --user) USER_MODE=1; shift ;;
    --disk-tmp) DISK_TMP=1; shift ;;
    --src) SRC=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --accel) ACCEL=$2; shift 2 ;;
    --mem) MEM=$2; shift 2 ;;
    --env) ENVS+=("$2"); shift 2 ;;
    --verbose|-v) VERBOSE=1; shift ;;
    --log) LOG=$2; shift 2 ;;
    --append) APPEND=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n 2,18p "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (the command goes after --)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "run.sh: no command (run.sh [options] -- COMMAND...)" >&2; exit 2; }
[ -f "$OUT/base.cpio" ] && [ -f "$OUT/vmlinuz" ] || { echo "run.sh: run $VM/build.sh first" >&2; exit 2; }
command -v cpio >/dev/null || { echo "run.sh: cpio is missing (apt-get install cpio)" >&2; exit 2; }
SRC=$(cd "$SRC" && pwd)

started=$(date +%s.%N)
stage=$(mktemp -d /tmp/questvm.XXXXXX)
trap 'rm -rf "$stage"' EXIT
tree=$stage/tree
mkdir -p "$tree/src" "$tree/vmrun"

# The tree under test.
list_files() {
  if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$SRC" ls-files -co --exclude-standard -z
  else
    (cd "$SRC" && find . -mindepth 1 \( -name .git -o -name .venv \) -prune -o \! -type d -print0)
  fi
}
(cd "$SRC" && list_files | grep -zv -E '^(\./)?(\.venv|\.git)(/|$)' \
  | while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done \
  | cpio -pdm0 --quiet "$tree/src")

# What to run, and how.
printf '%q ' "$@" > "$tree/vmrun/cmd"
echo "$USER_MODE" > "$tree/vmrun/user"
echo "$DISK_TMP" > "$tree/vmrun/disk_tmp"
if [ ${#ENVS[@]} -gt 0 ]; then printf '%s\n' "${ENVS[@]}" > "$tree/vmrun/env"; fi
install -m 0755 "$VM/init" "$tree/init"
install -m 0755 "$VM/checks.sh" "$tree/vmrun/checks.sh"

# base.cpio, zero-padded to 4 bytes, then this run's archive: the kernel unpacks both in order.
initrd=$stage/initrd
cp "${BASE:-$OUT/base.cpio}" "$initrd"
pad=$(( (4 - $(stat -c %s "$initrd") % 4) % 4 ))
[ "$pad" = 0 ] || head -c "$pad" /dev/zero >> "$initrd"
(cd "$tree" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >> "$initrd"

case $ACCEL in
  # KVM only where the CPU has VMX/SVM: a /dev/kvm without them (this host's kvm_pvm) runs a
  # stock kernel by emulating it, slower than TCG by far (the kernel's decompressor alone runs
  # for minutes). --accel kvm forces it anyway.
  auto) if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qw -E 'vmx|svm' /proc/cpuinfo; then
          accel=(-accel kvm -accel tcg,thread=multi)
        else
          accel=(-accel tcg,thread=multi)
        fi ;;
  kvm) accel=(-accel kvm) ;;  # -cpu max is the host's CPU under KVM
  tcg) accel=(-accel tcg,thread=multi) ;;
  *) echo "run.sh: --accel auto|kvm|tcg" >&2; exit 2 ;;
esac

log=$stage/console.log
set +e
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 "${accel[@]}" -cpu max -smp 2 -m "$MEM" \
  -nographic -no-reboot -nic none \
  -kernel "$OUT/vmlinuz" -initrd "$initrd" \
  -append "console=ttyS0 rdinit=/init lsm=landlock,yama panic=-1 quiet${APPEND:+ $APPEND}" < /dev/null 2>&1 \
  | tee "$log" | awk -v verbose="$VERBOSE" '
    { gsub(/\r/, ""); gsub(/\033\[[0-9;?]*[A-Za-z]/, ""); gsub(/\033c/, "") }
    /^@@VM / { shown = 1; print; fflush(); next }
    # Kernel lines: hidden during boot and power-off; shown while the command runs (with
    # "quiet", errors only: an OOM kill, a hung task) shown.
    /^\[ *[0-9]+\.[0-9]+\] / && (verbose || (shown && !/ (sysrq: Power Off|reboot: Power down)/)) {
      print; fflush(); next }
    /^\[ *[0-9]+\.[0-9]+\] / { next }
    shown || verbose { print; fflush() }'
qemu_rc=${PIPESTATUS[0]}
set -e
[ -z "$LOG" ] || cp "$log" "$LOG"

elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
code=$(tr -d '\r' < "$log" | sed -n 's/.*@@EXIT \([0-9]*\)@@.*/\1/p' | tail -1)
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
  echo "run.sh: timed out after $TIMEOUT s (qemu killed)" >&2
  [ -n "$code" ] || exit 124
fi
if [ -z "$code" ]; then
  echo "run.sh: the VM reported no exit code (qemu exit $qemu_rc); the console's last lines:" >&2
  tr -d '\r' < "$log" | tail -40 >&2
  exit 125
fi
echo "run.sh: exit $code after $elapsed s (${accel[*]}, user mode $USER_MODE)" >&2
exit "$code"
