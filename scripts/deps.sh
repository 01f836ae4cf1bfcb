#!/bin/sh
# Installs the Debian packages the build and the tests need that are not
# there yet, quietly (as root, or through sudo).
#   cmake, gcc, make      the build
#   pkg-config            tests/install: the pkg-config consumer
#   dpkg-dev, file        cpack's .deb packages (dpkg-shlibdeps finds their dependencies)
#   binutils              nm and readelf for the symbol and SONAME checks
set -eu
need=
for p in cmake gcc make pkg-config dpkg-dev file binutils; do
  dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need="$need $p"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $need >/dev/null
