"""Regenerate the bundled golden set (``python scripts/make_golden.py``), in src/irframe/datasets/golden/.

A script of the repository, not of the package: the wheel ships the data it wrote, not it.

The golden set is invented for irframe: a help-center search for "Voltmart", an
imaginary electronics shop.  The queries, the document titles and the grades below
are written by hand; the three runs are simulated with a seeded random generator so
that they differ in ways worth showing:

* ``bm25``: lexical.  Good recall and strong on long-tail queries (error codes, model
  numbers), but word-overlap decoys push non-relevant pages to the top on
  informational questions.
* ``dense``: semantic.  Best at the top of informational questions, weak on long-tail
  codes, and it misses many of the less relevant pages (lower recall).
* ``hybrid``: a fusion of both.  Best overall, but it loses to ``bm25`` on the
  long-tail segment.

Some relevant pages are returned by no system ("hidden"), and query q40 has no
relevant page at all (the shop does not sell what is asked), so that recall, nDCG
and the missing-query rules have something to show.  The output files are committed;
this script only documents how they were made and reproduces them byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["DOCS_PER_RUN", "SEED", "main"]

SEED = 20261129
DOCS_PER_RUN = 20
HERE = Path(__file__).resolve().parents[1] / "src" / "irframe" / "datasets" / "golden"

# (text, segment, [(title, grade), ...]); "!" before a title marks a hidden relevant page
# that no system retrieves; "~" marks a lexical decoy (shares the words, not relevant).
QUERIES: list[tuple[str, str, list[tuple[str, int]]]] = [
    # --- navigational: the user wants one known page ----------------------------------------
    (
        "return policy",
        "navigational",
        [
            ("Return policy", 3),
            ("Returns and refunds: how it works", 2),
            ("Return an item bought in store", 1),
            ("~Policy on price changes after purchase", 0),
        ],
    ),
    (
        "track my order",
        "navigational",
        [
            ("Track your order", 3),
            ("Where is my order? Delivery status explained", 2),
            ("Order confirmation emails", 1),
            ("~Order history in your account", 0),
        ],
    ),
    (
        "contact customer service",
        "navigational",
        [
            ("Contact us", 3),
            ("Chat with an agent", 2),
            ("!Call-back requests", 1),
            ("~Customer reviews guidelines", 0),
        ],
    ),
    (
        "gift card balance",
        "navigational",
        [
            ("Check your gift card balance", 3),
            ("Gift cards: terms and conditions", 1),
            ("~Gift wrapping service", 0),
        ],
    ),
    (
        "store locator",
        "navigational",
        [
            ("Find a store near you", 3),
            ("Store opening hours", 2),
            ("~Store pickup for online orders", 1),
        ],
    ),
    (
        "warranty registration",
        "navigational",
        [
            ("Register your product warranty", 3),
            ("Manufacturer warranty vs Voltmart Care", 1),
            ("~Product registration for recalls", 1),
            ("Warranty claim form", 1),
        ],
    ),
    (
        "student discount",
        "navigational",
        [
            ("Student discount programme", 3),
            ("Verify your student status", 2),
            ("~Discount codes: how to apply them", 0),
        ],
    ),
    (
        "shipping rates",
        "navigational",
        [
            ("Delivery options and shipping costs", 3),
            ("Free shipping threshold", 2),
            ("!Shipping to remote areas", 1),
            ("~Shipping damaged items back", 0),
        ],
    ),
    (
        "price match",
        "navigational",
        [
            ("Price match promise", 3),
            ("Price match: excluded retailers", 2),
            ("~Price drop after purchase", 1),
        ],
    ),
    (
        "trade in program",
        "navigational",
        [
            ("Trade-in: get credit for your old device", 3),
            ("Trade-in valuation explained", 2),
            ("~Program your universal remote", 0),
        ],
    ),
    (
        "order history",
        "navigational",
        [
            ("View your order history", 3),
            ("Download an invoice", 1),
            ("~Track your order", 0),
        ],
    ),
    (
        "financing options",
        "navigational",
        [
            ("Pay monthly: financing options", 3),
            ("Buy now, pay later eligibility", 2),
            ("~Payment methods we accept", 1),
        ],
    ),
    # --- informational: a question, several useful pages -----------------------------------
    (
        "how long does a refund take",
        "informational",
        [
            ("Refund timelines by payment method", 3),
            ("Returns and refunds: how it works", 2),
            ("!Refund not received after 10 days", 2),
            ("~How long does delivery take", 0),
            ("Store credit instead of a refund", 1),
        ],
    ),
    (
        "can i return opened headphones",
        "informational",
        [
            ("Returning opened or used items", 3),
            ("Hygiene exceptions for in-ear products", 3),
            ("Return policy", 1),
            ("~Headphones buying guide", 0),
        ],
    ),
    (
        "how to pair bluetooth earbuds with a laptop",
        "informational",
        [
            ("Pair Bluetooth earbuds with Windows and macOS", 3),
            ("Bluetooth troubleshooting", 2),
            ("Earbuds not charging in the case", 0),
            ("~Laptop buying guide: ports and wireless", 0),
            ("!Reset your earbuds to factory settings", 1),
        ],
    ),
    (
        "why is my laptop battery draining fast",
        "informational",
        [
            ("Improve laptop battery life", 3),
            ("Battery health and when to replace it", 2),
            ("~Laptop chargers and power adapters", 0),
            ("Power settings explained", 1),
        ],
    ),
    (
        "difference between oled and qled",
        "informational",
        [
            ("OLED vs QLED: which TV is right for you", 3),
            ("TV buying guide", 2),
            ("~QLED TV deals", 0),
            ("HDR formats explained", 1),
        ],
    ),
    (
        "can i change my delivery address after ordering",
        "informational",
        [
            ("Change the delivery address of an order", 3),
            ("Edit or cancel an order", 2),
            ("~Add an address to your account", 0),
            ("Redirect a parcel with the carrier", 1),
        ],
    ),
    (
        "how do i cancel an order",
        "informational",
        [
            ("Edit or cancel an order", 3),
            ("Cancel a pre-order", 2),
            ("~Cancel a subscription to Voltmart Care", 0),
            ("Refund timelines by payment method", 1),
        ],
    ),
    (
        "what does the extended warranty cover",
        "informational",
        [
            ("Voltmart Care: what is covered", 3),
            ("Voltmart Care: exclusions", 2),
            ("Manufacturer warranty vs Voltmart Care", 2),
            ("~Extended opening hours at Christmas", 0),
        ],
    ),
    (
        "how to update smart tv software",
        "informational",
        [
            ("Update your smart TV firmware", 3),
            ("Smart TV apps missing after update", 1),
            ("~Software licences and downloads", 0),
            ("!Automatic updates on smart TVs", 2),
        ],
    ),
    (
        "set up parental controls on a tablet",
        "informational",
        [
            ("Parental controls on tablets", 3),
            ("Create a child profile", 2),
            ("~Tablet cases and covers", 0),
            ("Screen time limits", 1),
        ],
    ),
    (
        "my card payment was declined",
        "informational",
        [
            ("Payment declined: what to do", 3),
            ("3-D Secure verification", 2),
            ("Payment methods we accept", 1),
            ("~Card readers for cameras", 0),
        ],
    ),
    (
        "how to recycle old electronics",
        "informational",
        [
            ("Recycling old electronics", 3),
            ("Trade-in: get credit for your old device", 1),
            ("Battery recycling drop-off", 2),
            ("~Refurbished electronics", 0),
        ],
    ),
    (
        "is international shipping available",
        "informational",
        [
            ("International delivery", 3),
            ("Customs fees and import duties", 2),
            ("~Shipping rates for large items", 0),
            ("Delivery options and shipping costs", 1),
        ],
    ),
    (
        "how to use a promo code",
        "informational",
        [
            ("Discount codes: how to apply them", 3),
            ("Promo code not working", 2),
            ("~Promotions terms and conditions", 1),
            ("Student discount programme", 0),
        ],
    ),
    (
        "what is the best way to clean a tv screen",
        "informational",
        [
            ("Clean your TV screen safely", 3),
            ("Screen protectors and cleaning kits", 1),
            ("~TV wall mounting service", 0),
        ],
    ),
    (
        "do you install appliances",
        "informational",
        [
            ("Delivery and installation service", 3),
            ("Installation: what to prepare", 2),
            ("~Install apps on your smart TV", 0),
            ("Old appliance removal", 1),
        ],
    ),
    # --- long-tail: codes, model numbers, rare combinations ---------------------------------
    (
        "washing machine error e21 drain",
        "long-tail",
        [
            ("Washing machine error codes E10-E29", 3),
            ("Clean the drain pump filter", 3),
            ("~Washing machine buying guide", 0),
            ("Book a repair", 1),
        ],
    ),
    (
        "x500 soundbar hdmi arc no sound",
        "long-tail",
        [
            ("X500 soundbar: no sound over HDMI ARC", 3),
            ("HDMI ARC and eARC settings", 2),
            ("~Soundbar deals", 0),
            ("X500 soundbar user manual", 1),
        ],
    ),
    (
        "refund for an order split into two shipments",
        "long-tail",
        [
            ("Refunds on split shipments", 3),
            ("Partial refunds explained", 2),
            ("!Returning part of an order", 2),
            ("~Split payment with two cards", 0),
        ],
    ),
    (
        "kt88 charger compatible with usb-c laptop",
        "long-tail",
        [
            ("KT88 charger compatibility list", 3),
            ("USB-C power delivery explained", 2),
            ("~KT88 travel adapter plugs", 0),
            ("Laptop chargers and power adapters", 1),
        ],
    ),
    (
        "replacement remote rc-7 tv",
        "long-tail",
        [
            ("RC-7 replacement remote", 3),
            ("Pair a replacement remote with your TV", 2),
            ("~Program your universal remote", 1),
        ],
    ),
    (
        "gift card bought abroad not working",
        "long-tail",
        [
            ("Gift cards from other countries", 3),
            ("Gift card not working", 2),
            ("~Check your gift card balance", 0),
        ],
    ),
    (
        "dead pixel 4k monitor warranty claim",
        "long-tail",
        [
            ("Dead pixel policy for monitors", 3),
            ("Warranty claim form", 2),
            ("~4K monitor buying guide", 0),
            ("!Test your monitor for dead pixels", 1),
        ],
    ),
    (
        "router firmware 3.2 wifi keeps dropping",
        "long-tail",
        [
            ("Wi-Fi drops after router firmware 3.2", 3),
            ("Roll back router firmware", 2),
            ("Improve your home Wi-Fi signal", 1),
            ("~Router buying guide", 0),
        ],
    ),
    (
        "noise cancelling earbuds one side quieter",
        "long-tail",
        [
            ("One earbud quieter than the other", 3),
            ("Clean your earbuds' mesh", 2),
            ("~Noise cancelling explained", 0),
            ("Reset your earbuds to factory settings", 1),
        ],
    ),
    (
        "laptop fan loud after bios update",
        "long-tail",
        [
            ("Fan noise after a BIOS update", 3),
            ("Update or roll back your BIOS", 2),
            ("~Laptop cooling pads", 0),
        ],
    ),
    (
        "tablet stuck on logo after update",
        "long-tail",
        [
            ("Tablet stuck on the boot logo", 3),
            ("Recovery mode on tablets", 2),
            ("~Update your smart TV firmware", 0),
        ],
    ),
    (
        "do you sell refurbished iphones",
        "long-tail",
        [
            ("~Refurbished electronics", 0),
            ("~Phone buying guide", 0),
        ],
    ),
]

# Pages no query judged: the rest of the help center.
EXTRA_TITLES = [
    "Create an account",
    "Reset your password",
    "Newsletter preferences",
    "Cookie settings",
    "Accessibility at Voltmart",
    "Careers",
    "Corporate sales",
    "Product safety recalls",
    "Camera buying guide",
    "Printer ink subscriptions",
    "Gaming console bundles",
    "Smart home starter guide",
    "Kitchen appliance care",
    "Vacuum cleaner filters",
    "Home cinema setup",
    "Sustainability report",
    "Press office",
    "Affiliate programme",
    "Marketplace sellers",
    "Loyalty points",
    "Birthday offers",
    "Click and collect lockers",
    "Black Friday FAQ",
    "Data protection requests",
    "Report a security issue",
]

# (name, per-segment signal strength, noise sd, lexical decoy boost,
#  probability of missing a grade-1 page, probability of missing a grade-2+ page)
SYSTEMS: list[tuple[str, dict[str, float], float, float, float, float]] = [
    ("bm25", {"navigational": 0.9, "informational": 0.5, "long-tail": 1.0}, 1.0, 1.5, 0.05, 0.0),
    ("dense", {"navigational": 0.95, "informational": 1.1, "long-tail": 0.4}, 0.8, 0.2, 0.5, 0.15),
    ("hybrid", {"navigational": 0.95, "informational": 0.9, "long-tail": 0.55}, 0.9, 0.6, 0.1, 0.0),
]


def _build() -> dict[str, str]:
    rng = np.random.default_rng(SEED)
    titles: dict[str, str] = {}  # title -> doc_id; a page judged for two queries is one doc

    def doc_id(title: str) -> str:
        if title not in titles:
            titles[title] = f"kb{len(titles) + 1:03d}"
        return titles[title]

    judged: list[list[tuple[str, int, bool, bool]]] = []  # (doc, grade, hidden, decoy)
    for _, _, pages in QUERIES:
        rows = []
        for title, grade in pages:
            hidden, decoy = title.startswith("!"), title.startswith("~")
            rows.append((doc_id(title.lstrip("!~")), grade, hidden, decoy))
        judged.append(rows)
    for title in EXTRA_TITLES:
        doc_id(title)
    all_docs = list(titles.values())

    files: dict[str, str] = {}
    files["queries.tsv"] = "query_id\ttext\tsegment\n" + "".join(
        f"q{i + 1:02d}\t{text}\t{segment}\n" for i, (text, segment, _) in enumerate(QUERIES)
    )
    files["docs.tsv"] = "doc_id\ttitle\n" + "".join(f"{d}\t{t}\n" for t, d in titles.items())
    files["qrels.txt"] = "".join(
        f"q{i + 1:02d} 0 {d} {g}\n" for i, rows in enumerate(judged) for d, g, _, _ in rows
    )
    for name, strength, noise, decoy_boost, miss1, miss2 in SYSTEMS:
        lines = []
        for i, ((_, segment, _), rows) in enumerate(zip(QUERIES, judged, strict=True)):
            grades = {d: (g, hidden, decoy) for d, g, hidden, decoy in rows}
            others = [d for d in all_docs if d not in grades]
            pool = list(grades) + list(rng.choice(others, size=25, replace=False))
            scored = []
            for d in pool:
                g, hidden, decoy = grades.get(d, (0, False, False))
                miss = miss1 if g == 1 else miss2 if g >= 2 else 0.0
                if hidden or rng.random() < miss:
                    continue
                s = strength[segment] * g + rng.normal(0.0, noise) + (decoy_boost if decoy else 0)
                scored.append((s, d))
            scored.sort(key=lambda x: (-x[0], x[1]))
            top = scored[:DOCS_PER_RUN]
            low = min(s for s, _ in top)
            # positive scores with 4 decimals (readable in a diff), ranked like trec_eval:
            # score descending, ties by doc id descending
            shown = sorted(((round(s - low + 1, 4), d) for s, d in top), reverse=True)
            for rank, (s, d) in enumerate(shown, start=1):
                lines.append(f"q{i + 1:02d} Q0 {d} {rank} {s:.4f} {name}\n")
        files[f"runs/{name}.run"] = "".join(lines)
    return files


def main() -> None:
    """Write the golden set into the package, under ``src/irframe/datasets/golden/``."""
    for rel, text in _build().items():
        path = HERE / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {path.relative_to(HERE.parent)} ({text.count(chr(10))} lines)")


if __name__ == "__main__":
    main()
