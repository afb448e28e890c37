"""What every report format shares: the notes written once (:mod:`.notes`) and the one
self-contained HTML page (:mod:`.page`) of the comparison and check reports."""
