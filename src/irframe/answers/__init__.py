"""The answer layer: is the final answer of a RAG system supported, cited and grounded?

Metrics for the list ask whether the right documents were retrieved; these ask about
the answer built from them, as the TREC 2024 and 2025 RAG tracks score answers:

- :func:`nugget_scores`: the nuggets (vital or okay facts) an answer supports;
- :func:`support_scores`: whether each answer sentence's citations support it;
- :func:`grounding`: whether the cited documents were retrieved, how high, whether they
  are judged relevant, and which citations point outside the run (no LLM needed);
- :func:`ppi_mean`, :func:`ppi_mean_difference`: unbiased means from many LLM labels and
  a few human ones (prediction-powered inference).

Every function takes the caller's frames and returns the caller's frame type.
"""

from __future__ import annotations

from irframe.answers._grounding import Grounding, grounding
from irframe.answers._nuggets import nugget_scores
from irframe.answers._ppi import ppi_mean, ppi_mean_difference
from irframe.answers._support import support_scores

__all__ = ["Grounding", "grounding", "nugget_scores", "ppi_mean", "ppi_mean_difference", "support_scores"]
