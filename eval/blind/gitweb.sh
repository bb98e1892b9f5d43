#!/usr/bin/env bash
# The gitweb run quoted in README.md and eval/crawl-extra-notes.md, reproducible: Debian's gitweb
# over this repository's first 388 commits (up to a923f22), served on 127.0.0.1 by Python's CGI
# server; Exemplar learns from the project summary and one commit page, crawls with the pattern,
# and the commits found are scored against `git rev-list` (a commit counts once, whichever of
# its URLs was collected). Run by hand (not in CI: it installs gitweb):
#
#   bash eval/blind/gitweb.sh            # WORK=dir keeps the files there, PORT=n (8811)
#
# gitweb asks robots not to follow any link of its pages (`<meta name="robots"
# content="index, nofollow">`), so learning runs with --ignore-robots.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REV=a923f2285abba24d101dc7aa6e4f04ba482a996f
EXAMPLE=64906686b0838842f371c4cfbbd60825cf2af739
PORT=${PORT:-8811}
WORK=${WORK:-$(mktemp -d /tmp/exemplar-gitweb.XXXXXX)}
BIN=$ROOT/target/release/exemplar

die() { echo "gitweb.sh: $*" >&2; exit 1; }

[[ -f /usr/share/gitweb/gitweb.cgi ]] || {
  command -v apt-get >/dev/null || die "needs Debian's gitweb package"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q gitweb >/dev/null
}
git -C "$ROOT" cat-file -e "$REV^{commit}" 2>/dev/null ||
  die "commit $REV is not in $ROOT (a shallow clone? git fetch --unshallow)"
(cd "$ROOT" && cargo build --release --quiet --bin exemplar)

mkdir -p "$WORK/repos" "$WORK/www/cgi-bin"
repo=$WORK/repos/exemplar.git
rm -rf "$repo"
git clone --bare --no-tags -q "$ROOT" "$repo"
# One branch, `main`, at REV: the site is the same whatever this clone holds beyond it.
git -C "$repo" for-each-ref --format='%(refname)' | while read -r ref; do git -C "$repo" update-ref -d "$ref"; done
git -C "$repo" update-ref refs/heads/main "$REV"
git -C "$repo" symbolic-ref HEAD refs/heads/main
git -C "$repo" rev-list "$REV" > "$WORK/truth.txt"

cat > "$WORK/gitweb.conf" <<EOF
our \$projectroot = "$WORK/repos";
our \$GIT = "/usr/bin/git";
our @stylesheets = ("/static/gitweb.css");
our \$javascript = "/static/gitweb.js";
EOF
cp /usr/share/gitweb/gitweb.cgi "$WORK/www/cgi-bin/gitweb.cgi"
ln -sfn /usr/share/gitweb/static "$WORK/www/static"

GITWEB_CONFIG=$WORK/gitweb.conf python3 - "$WORK/www" "$PORT" > "$WORK/server.log" 2>&1 <<'EOF' &
import http.server, os, socketserver, sys, warnings
warnings.simplefilter("ignore", DeprecationWarning)
os.chdir(sys.argv[1])
class Handler(http.server.CGIHTTPRequestHandler):
    cgi_directories = ["/cgi-bin"]
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
Server(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
EOF
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
base="http://127.0.0.1:$PORT/cgi-bin/gitweb.cgi?p=exemplar.git"
for _ in $(seq 50); do curl -fs -o /dev/null "$base;a=summary" && break; sleep 0.2; done

cd "$WORK"
"$BIN" learn --entry "$base;a=summary" --example "$base;a=commit;h=$EXAMPLE" --ignore-robots \
  --delay-ms 0 --concurrency 4 --quiet -o pattern.json --map map.json > learn.out 2> learn.err
"$BIN" crawl pattern.json --csv crawl.csv --delay-ms 0 --concurrency 4 --quiet > crawl.out 2> crawl.err
grep '^mapping:' learn.out || true
head -2 crawl.err

python3 - "$repo" "$ROOT/eval/blind" <<'EOF'
import re, subprocess, sys
repo = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from score import report
resolved = {}

def commit_of(url):
    """The commit a URL's page shows: `a=commit` with `h` (or `hb`, else HEAD) resolved."""
    query = url.split("?", 1)[1] if "?" in url else ""
    p = dict((kv.split("=", 1) + [""])[:2] for kv in re.split("[;&]", query) if kv)
    if p.get("a") != "commit" or p.get("p") != "exemplar.git":
        return None
    h = p.get("h") or p.get("hb") or "HEAD"
    if h not in resolved:
        out = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "-q", h + "^{commit}"],
                             capture_output=True, text=True).stdout.strip()
        resolved[h] = out or None
    return resolved[h]

report(commit_of, "commits")
EOF
echo "files in $WORK"
