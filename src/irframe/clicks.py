"""Search logs without judgments: position bias, click models as judgments, counterfactual evaluation.

A search log has impressions and clicks, not grades.  Users click position 1 far more than
position 5 whatever is there, so judgments made of raw clicks measure the ranker that
produced the log as much as the documents' quality.  The three tools here correct for it,
each a few table aggregations over an impression log (one row per impression and shown
document: ``impression_id``, ``query_id``, ``doc_id``, ``position``, ``clicked``):

- :func:`position_bias` (and :func:`position_bias_fit`): how often each position is
  examined, relative to position 1;
- :func:`click_judgments` (and :func:`click_model`): per (query, document) relevance from a
  click model (COEC, cascade, DCM, SDBN, PBM, UBM, DBN), a qrels frame for ``evaluate``;
- :func:`counterfactual`: what a new ranking would score on the logged clicks, reweighted
  by the examination probabilities (IPS), or with the slate estimators when the log
  records the logging policy's propensities.

Examples
--------
>>> import polars as pl, irframe
>>> log = pl.DataFrame({"impression_id": [1, 1, 2, 2], "query_id": "q",
...                     "doc_id": ["a", "b", "b", "a"], "position": [1, 2, 1, 2],
...                     "clicked": [1, 0, 1, 0]})
>>> irframe.clicks.click_judgments(log, "cm")["relevance"].to_list()
[0.6666666666666666, 0.6666666666666666]
"""

from __future__ import annotations

from irframe._clicks.bias import METHODS, PositionBias, position_bias, position_bias_fit
from irframe._clicks.counterfactual import ESTIMATORS, counterfactual
from irframe._clicks.models import MODELS, ClickModel, click_judgments, click_model

__all__ = [
    "ESTIMATORS", "METHODS", "MODELS", "ClickModel", "PositionBias", "click_judgments", "click_model",
    "counterfactual", "position_bias", "position_bias_fit",
]  # fmt: skip
