# Derives data/forms/en-frequency.txt from wordfreq 3.1.1's small_en.msgpack.gz.
import gzip, msgpack, sys
data = msgpack.load(gzip.open('wordfreq/data/small_en.msgpack.gz'), raw=False)
header, buckets = data[0], data[1:]
assert header['format'] == 'cB', header
out = []
for i, words in enumerate(buckets):
    per_billion = round(10 ** (-i / 100) * 1e9)
    for w in words:
        if len(w) >= 2 and w.isascii() and w.isalpha() and w == w.lower():
            out.append((w, per_billion))
N = int(sys.argv[1])
print("# Common English words, most frequent first: word<TAB>occurrences per billion words.")
print("# Source: wordfreq 3.1.1 (PyPI, Robyn Speer), file wordfreq/data/small_en.msgpack.gz, whose")
print("# buckets hold words at -i centibels (frequency 10^(-i/100)); this list keeps the first")
print(f"# {N} lower-case ASCII alphabetic words of two or more letters in bucket order (ties in")
print("# wordfreq's order) with their bucket frequency. Data licence: CC BY-SA 4.0 (wordfreq's data).")
print("# Regenerate: pip download wordfreq==3.1.1 --no-deps; unzip; python3 gen-frequency.py 12000 (see README.md).")
for w, f in out[:N]:
    print(f"{w}\t{f}")
