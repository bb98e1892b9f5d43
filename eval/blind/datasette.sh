#!/usr/bin/env bash
# The Datasette run quoted in README.md and eval/crawl-extra-notes.md, reproducible: Datasette
# 0.65.5 (from PyPI, in a venv) over 3,929 Debian package records (eval/blind/
# datasette-packages.json.gz: the packages, maintainers and sections tables as they were built
# for stop 37's blind run from a bookworm machine's package lists), served on 127.0.0.1.
# Exemplar learns from the home page and one row page (`/db/packages/bash`) with its default
# budget of 10,000 pages, crawls with the pattern, and the rows found are scored against the
# table (a row counts once, whatever its URL's escaping). Run by hand (not in CI: it installs
# Datasette from PyPI; about 6 minutes):
#
#   bash eval/blind/datasette.sh         # WORK=dir keeps the files there, PORT=n (8801)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PORT=${PORT:-8801}
WORK=${WORK:-$(mktemp -d /tmp/exemplar-datasette.XXXXXX)}
BIN=$ROOT/target/release/exemplar

(cd "$ROOT" && cargo build --release --quiet --bin exemplar)
mkdir -p "$WORK" && cd "$WORK"
[[ -x venv/bin/datasette ]] || {
  python3 -m venv venv
  venv/bin/pip install -q 'datasette==0.65.5'
}

# The database, and the ground truth: every row of `packages`.
python3 - "$ROOT/eval/blind/datasette-packages.json.gz" <<'EOF'
import gzip, json, os, sqlite3, sys
data = json.loads(gzip.decompress(open(sys.argv[1], "rb").read()))
if os.path.exists("db.sqlite"):
    os.remove("db.sqlite")
db = sqlite3.connect("db.sqlite")
for sql in data["schema"]:
    db.execute(sql)
for table in ["maintainers", "sections", "packages"]:
    t = data[table]
    marks = ",".join("?" * len(t["columns"]))
    db.executemany(f"insert into {table} ({','.join(t['columns'])}) values ({marks})", t["rows"])
db.commit()
name = data["packages"]["columns"].index("name")
with open("truth.txt", "w") as f:
    for row in data["packages"]["rows"]:
        f.write(row[name] + "\n")
EOF

venv/bin/datasette serve db.sqlite --port "$PORT" --host 127.0.0.1 > server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
base="http://127.0.0.1:$PORT"
for _ in $(seq 100); do curl -fs -o /dev/null "$base/" && break; sleep 0.2; done

"$BIN" learn --entry "$base/" --example "$base/db/packages/bash" --delay-ms 0 --concurrency 4 \
  --quiet -o pattern.json --map map.json > learn.out 2> learn.err
"$BIN" crawl pattern.json --csv crawl.csv --delay-ms 0 --concurrency 4 --quiet > crawl.out 2> crawl.err
grep '^mapping:' learn.out || true
head -1 crawl.err

python3 - "$ROOT/eval/blind" <<'EOF'
import re, sys, urllib.parse
sys.path.insert(0, sys.argv[1])
from score import report

def row_of(url):
    """The package a row page shows: Datasette escapes `.` and others in a row's URL as `~2E`."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    m = re.fullmatch(r"/db/packages/([^/]+)", path)
    if not m:
        return None
    return re.sub(r"~([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(1))

report(row_of, "rows")
EOF
echo "files in $WORK"
