#!/usr/bin/env bash
# Builds Ostium's release artifacts into dist/ (at the repository's root):
#
#   dist/linux_<arch>/ostium                      the binary (no cgo: the SQLite driver is pure Go)
#   dist/ostium_<version>_linux_<arch>.tar.gz     binary, README.md, deploy/ files
#   dist/ostium_<version>-1_<arch>.deb            Debian and Ubuntu (~ for - in the version)
#   dist/ostium-<version>-1.<x86_64|aarch64>.rpm  RHEL, Fedora, SUSE
#   dist/SHA256SUMS                               of every archive and package
#   dist/VERSION                                  the version built
#
# for amd64 and arm64. Packages are made with nFPM, built from the Go
# module proxy (it is not a dependency of the ostium binary).
#
# Environment:
#   VERSION   the release version (1.2.0, 1.3.0-rc.1); default: the tag
#             v<version> at HEAD, else 0.0.0-dev.<commit time>.g<commit>
#             (.dirty when the tree has changes)
#   ARCHES    default "amd64 arm64"
#   FORMATS   default "tar deb rpm"
#   DIST      output directory, default dist
set -euo pipefail
cd "$(dirname "$0")/../.."

arches=${ARCHES:-amd64 arm64}
formats=${FORMATS:-tar deb rpm}
dist=$(realpath -m "${DIST:-dist}")
nfpm_version=v2.45.2

commit=$(git rev-parse HEAD)
# The commit's time, not the clock's: the same commit builds the same
# binary and packages (SOURCE_DATE_EPOCH for nFPM's file times too).
epoch=$(git log -1 --format=%ct HEAD)
date=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
modified=false
[ -z "$(git status --porcelain --untracked-files=no)" ] || modified=true
if [ -z "${VERSION:-}" ]; then
  if tag=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null) && [ "$modified" = false ]; then
    VERSION=${tag#v}
  else
    VERSION="0.0.0-dev.$(date -u -d "@$epoch" +%Y%m%d%H%M%S).g${commit:0:12}"
    [ "$modified" = false ] || VERSION="$VERSION.dirty"
  fi
fi
VERSION=${VERSION#v}
if ! [[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
  echo "build.sh: VERSION=$VERSION is not MAJOR.MINOR.PATCH[-PRERELEASE] (letters, digits and dots after the dash)" >&2
  exit 1
fi
export SOURCE_DATE_EPOCH=$epoch VERSION

echo "ostium $VERSION (commit ${commit:0:12}, $date, modified=$modified) -> $dist/"
rm -rf "$dist"
mkdir -p "$dist"
echo "$VERSION" >"$dist/VERSION"

pkg=github.com/ostiumio/ostium/internal/buildinfo
ldflags="-s -w -X $pkg.version=$VERSION -X $pkg.commit=$commit -X $pkg.date=$date -X $pkg.modified=$modified"

# The unit in the package is deploy/ostium.service with the binary where
# the package puts it; the substitution is checked, so that a change to
# the unit's ExecStart is not shipped pointing at nothing.
stage="$dist/stage"
mkdir -p "$stage"
sed 's#/usr/local/bin/ostium#/usr/bin/ostium#g' deploy/ostium.service >"$stage/ostium.service"
grep -q '^ExecStart=/usr/bin/ostium serve' "$stage/ostium.service" || {
  echo "build.sh: deploy/ostium.service has no ExecStart=/usr/local/bin/ostium serve to point at /usr/bin/ostium" >&2
  exit 1
}

nfpm=
if [[ " $formats " == *" deb "* || " $formats " == *" rpm "* ]]; then
  # Built from the module proxy at a pinned version (the build cache
  # keeps it: a second run only links it).
  GOBIN="$stage" GOFLAGS= CGO_ENABLED=0 go install "github.com/goreleaser/nfpm/v2/cmd/nfpm@$nfpm_version"
  nfpm="$stage/nfpm"
fi

for arch in $arches; do
  out="$dist/linux_$arch"
  mkdir -p "$out"
  echo "==> linux/$arch binary"
  GOOS=linux GOARCH=$arch CGO_ENABLED=0 GOFLAGS= go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out/ostium" ./cmd/ostium

  if [[ " $formats " == *" tar "* ]]; then
    name="ostium_${VERSION}_linux_${arch}"
    tree="$stage/$name"
    mkdir -p "$tree/deploy"
    cp "$out/ostium" README.md "$tree/"
    [ ! -f LICENSE ] || cp LICENSE "$tree/"
    cp deploy/*.service deploy/*.yaml deploy/*.yml deploy/*.cfg deploy/*.json deploy/README.md "$tree/deploy/"
    echo "==> $name.tar.gz"
    tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -C "$stage" -czf "$dist/$name.tar.gz" "$name"
  fi
  for format in deb rpm; do
    [[ " $formats " == *" $format "* ]] || continue
    echo "==> $format ($arch)"
    ARCH=$arch STAGE=$stage BIN="$out/ostium" "$nfpm" package --config deploy/package/nfpm.yaml --packager "$format" --target "$dist/"
  done
done

rm -rf "$stage"
shopt -s nullglob
(cd "$dist" && files=(*.tar.gz *.deb *.rpm) && if [ ${#files[@]} -gt 0 ]; then sha256sum -- "${files[@]}" >SHA256SUMS; fi)
echo "==> $dist/"
ls -l "$dist"
