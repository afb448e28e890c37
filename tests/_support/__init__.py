"""What the tests share and are not tests themselves: frame constructors and comparison helpers
(``helpers``), the in-process CLI runner (``cli_runner``), the plain-Python oracles (``oracle``,
``oracle_more``), trec_eval's runner and cases, generated data and cases, the skip rules
(``skips``) and the toy backend.  Imported as ``from _support.helpers import ...`` (``tests/``
is on ``sys.path`` through its ``conftest.py``)."""
