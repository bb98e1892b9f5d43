"""Scoring of a blind run, shared by the scripts of eval/blind: the target URLs that mapping found
(map.json) and that the crawl collected (crawl.csv) against the ground truth (truth.txt, one item
per line), all in the current folder. A script passes `item_of`, which names the item a URL's
page shows (None: not an item page), and the item's name in the printout."""
import csv
import json


def score(what, urls, item_of, truth, unit):
    """Prints one line: URLs, items found, further URLs of an item found, URLs of no item."""
    items = [item_of(u) for u in urls]
    true = {i for i in items if i in truth}
    false = sum(1 for i in items if i not in truth)
    copies = sum(1 for i in items if i in truth) - len(true)
    print(f"{what}: {len(urls)} target URLs, {len(true)} of {len(truth)} {unit}, "
          f"{copies} more URLs of one of them, {false} not {unit}; "
          f"precision {len(true) / max(len(true) + false, 1):.1%}, recall {len(true) / len(truth):.1%}")


def report(item_of, unit):
    """Scores mapping and the crawl."""
    truth = {line.rstrip("\n") for line in open("truth.txt") if line.strip()}
    nodes = json.load(open("map.json"))["nodes"]
    score("map", [n["url"] for n in nodes if n["state"] == "target"], item_of, truth, unit)
    score("crawl", [row["url"] for row in csv.DictReader(open("crawl.csv"))], item_of, truth, unit)
