#!/bin/bash
# Build the throwaway cgroup-v2 VM: a Debian bookworm rootfs with /venv (the project's deps and
# test extras installed editable from /src), packed as _build/base.cpio, and a Debian 6.1
# kernel at _build/vmlinuz (beside this script). Rerunnable: every run starts from a fresh rootfs (downloaded .debs
# are cached in _build/cache). Usage: build.sh [--src DIR] [--lz4|--zstd|--gzip|--none]
# lz4 (default, legacy format as the kernel wants it) unpacks fastest under TCG: the boot reaches
# /init in ~12 s, as with no compression (643 MB), against ~17 s with zstd.
set -euo pipefail

VM=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$VM/../.." && pwd)  # the repository this folder is in
OUT=$VM/_build  # what build.sh makes (ignored by git)
COMPRESS=lz4
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PACKAGES=python3,python3-venv,python3-dev,gcc,libc6-dev,util-linux,procps,git,ca-certificates,iproute2,less,kmod
while [ $# -gt 0 ]; do
  case $1 in
    --src) SRC=$2; shift 2 ;;
    --lz4) COMPRESS=lz4; shift ;;
    --gzip) COMPRESS=gzip; shift ;;
    --zstd) COMPRESS=zstd; shift ;;
    --none) COMPRESS=none; shift ;;
    -h|--help) sed -n 2,8p "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$OUT"
ROOT=$OUT/rootfs
CACHE=$OUT/cache
START=$SECONDS
step() { echo "== [$((SECONDS - START)) s] $*"; }

[ "$(id -u)" = 0 ] || { echo "build.sh: run as root" >&2; exit 1; }
for tool in debootstrap cpio zstd lz4; do
  if ! command -v $tool >/dev/null; then
    step "installing $tool on the host"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $tool >/dev/null
  fi
done

unmount_all() {
  # Everything mounted under the rootfs, deepest first.
  local m
  for m in $(awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}
trap unmount_all EXIT

# 1. rootfs -------------------------------------------------------------------------------------
unmount_all
if [ -e "$ROOT" ]; then
  step "removing the old rootfs"
  rm -rf --one-file-system "$ROOT"
fi
mkdir -p "$CACHE/debs"
step "debootstrap --variant=minbase $SUITE (+ $PACKAGES)"
debootstrap --variant=minbase --cache-dir="$CACHE/debs" --include="$PACKAGES" \
  "$SUITE" "$ROOT" "$MIRROR" > "$CACHE/debootstrap.log" 2>&1 \
  || { tail -30 "$CACHE/debootstrap.log"; exit 1; }

# 2. kernel -------------------------------------------------------------------------------------
step "kernel"
(
  cd "$CACHE"
  apt-get update -qq >/dev/null 2>&1 || true
  image=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  [ -n "$image" ] || { echo "build.sh: cannot resolve linux-image-amd64 on this host" >&2; exit 1; }
  ls ${image}_*.deb >/dev/null 2>&1 || apt-get download "$image" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
  deb=$(ls ${image}_*.deb | tail -1)
  rm -rf kernel && mkdir kernel && dpkg-deb -x "$deb" kernel
  cp kernel/boot/vmlinuz-* "$OUT/vmlinuz"
  cp kernel/boot/config-* "$OUT/kernel.config"
  echo "$deb" > "$OUT/kernel.version"
  # Everything the VM needs is built in, except what run.sh --disk-tmp uses: an ext4 /tmp on a
  # loop device (page cache that can be dropped, which tmpfs has not). Only those modules.
  version=$(ls kernel/lib/modules)
  for m in drivers/block/loop fs/ext4/ext4 fs/jbd2/jbd2 fs/mbcache lib/crc16 \
           crypto/crc32c_generic arch/x86/crypto/crc32c-intel lib/libcrc32c; do
    install -D -m 0644 "kernel/lib/modules/$version/kernel/$m.ko" \
      "$ROOT/lib/modules/$version/kernel/$m.ko"
  done
  cp kernel/lib/modules/$version/modules.builtin* kernel/lib/modules/$version/modules.order \
    "$ROOT/lib/modules/$version/"
  chroot "$ROOT" depmod -a "$version"
  rm -rf kernel
)
echo "   $(cat "$OUT/kernel.version")"

# 3. /venv with the project's deps --------------------------------------------------------------
step "copying $SRC (tracked + untracked-not-ignored files) to rootfs /src"
mkdir -p "$ROOT/src"
(cd "$SRC" && git ls-files -co --exclude-standard -z | grep -zv -E '^(\.venv|\.git)/' \
   | while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done \
   | cpio -pdm0 --quiet "$ROOT/src")
mount -t proc proc "$ROOT/proc"
mount -t sysfs sysfs "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
mount --bind /dev/pts "$ROOT/dev/pts"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# This host's network may re-sign TLS with a CA that only the host's bundle has: pip in the
# chroot uses that bundle during the build (removed afterwards).
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/tmp/host-ca.crt"
step "python3 -m venv /venv; pip install -e /src[test]"
chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_DEFAULT_TIMEOUT=180 PIP_CERT=/tmp/host-ca.crt /bin/bash -euc '
    python3 -m venv /venv
    /venv/bin/pip install -q --upgrade pip
    /venv/bin/pip install -q -e "/src[test]"
    /venv/bin/pip list --format=freeze > /venv/pip-freeze.txt
  ' 2>&1 | tail -20
[ -x "$ROOT/venv/bin/pytest-quest" ] || { echo "build.sh: pip install failed" >&2; exit 1; }
# The editable install points at /src; run.sh lays the current tree there on every boot, so the
# base keeps none of it (a file deleted from the tree must not come back from the base).
find "$ROOT/src" -mindepth 1 -delete

# 4. user, identity, cleanup -------------------------------------------------------------------
step "user quest (uid 1000), cleanup"
chroot "$ROOT" useradd -m -u 1000 -U -s /bin/bash quest
echo questvm > "$ROOT/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tquestvm\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"
: > "$ROOT/etc/resolv.conf"
unmount_all
rm -rf "$ROOT"/var/cache/apt/* "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/doc/* \
  "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* "$ROOT"/usr/share/locale/* \
  "$ROOT"/usr/share/lintian "$ROOT"/var/log/* "$ROOT"/root/.cache "$ROOT"/tmp/* \
  "$ROOT"/var/cache/debconf/*-old "$ROOT"/var/lib/dpkg/*-old
mkdir -p "$ROOT/vmrun"
install -m 0755 "$VM/init" "$ROOT/init"   # run.sh lays the current init over this one anyway
install -m 0755 "$VM/checks.sh" "$ROOT/vmrun/checks.sh"

# 5. pack ---------------------------------------------------------------------------------------
step "packing base.cpio ($COMPRESS); rootfs is $(du -sh --apparent-size "$ROOT" | cut -f1)"
pack() { (cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet); }
case $COMPRESS in
  # The kernel's lz4 reader takes the legacy format and stops at a zero chunk size: the zeros
  # after it let run.sh's archive follow (without them that archive is never unpacked).
  lz4) pack | lz4 -l -9 -q > "$OUT/base.cpio.tmp"; head -c 12 /dev/zero >> "$OUT/base.cpio.tmp" ;;
  zstd) pack | zstd -q -T1 -6 > "$OUT/base.cpio.tmp" ;;
  gzip) pack | gzip -6 > "$OUT/base.cpio.tmp" ;;
  none) pack > "$OUT/base.cpio.tmp" ;;
esac
mv "$OUT/base.cpio.tmp" "$OUT/base.cpio"
step "done: $(du -h "$OUT/base.cpio" | cut -f1) base.cpio ($COMPRESS), vmlinuz $(du -h "$OUT/vmlinuz" | cut -f1)"
