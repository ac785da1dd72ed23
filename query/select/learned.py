"""The LLM-free selector: a logistic regression over the cheap features of `query.select.features`, trained on the
benchmark's dev split by `spider train-selector` and shipped as a small JSON file (its feature list, per first
stage the standardisation, weights and admission threshold, its version and how it was trained). Deterministic,
zero tokens, milliseconds per query. SPIDER_LEARNED_MODEL points at another model file (e.g. one trained on
an organisation's own issues).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from spider.core.errors import ConfigurationError
from spider.core.settings import Settings
from spider.query.results import Decision
from spider.query.select.decide import SelectionRequest
from spider.query.select.features import FEATURES, request_features

SHIPPED_MODEL = Path(__file__).with_name("learned_selector.json")
FORMAT = "spider-learned-selector"


@dataclass(frozen=True)
class Weights:
    """One logistic regression over standardised FEATURES, and the probability from which it admits: per
    expansion (`thresholds`, keyed as --edges spells it), since each offers candidates of its own kind, else
    `threshold`."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    thresholds: dict[str, float] = field(default_factory=dict)

    def threshold_for(self, edges: str) -> float:
        return self.thresholds.get(edges, self.threshold)

    def probability(self, row: list[float]) -> float:
        z = self.intercept + sum(w * (x - m) / s for w, x, m, s in zip(self.coef, row, self.mean, self.scale))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def to_json(self) -> dict:
        return {"mean": list(self.mean), "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept, "threshold": self.threshold, "thresholds_by_edges": self.thresholds}

    @classmethod
    def from_json(cls, data: dict) -> "Weights":
        weights = cls(tuple(map(float, data["mean"])), tuple(map(float, data["scale"])),
                      tuple(map(float, data["coef"])), float(data["intercept"]), float(data["threshold"]),
                      {str(e): float(t) for e, t in data.get("thresholds_by_edges", {}).items()})
        if not len(weights.mean) == len(weights.scale) == len(weights.coef) == len(FEATURES):
            raise ValueError(f"weights for {len(weights.coef)} features, not {len(FEATURES)}")
        return weights


@dataclass(frozen=True)
class SelectorModel:
    """The model file: one regression per first stage (`hybrid`, `dense`, `bm25`: their ranks and
    scores mean different things), its version, and how it was trained."""

    version: str
    weights: dict[str, Weights]
    meta: dict

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": self.version, "model": "logistic regression", "features": list(FEATURES),
                "weights": {origin: w.to_json() for origin, w in self.weights.items()}, **self.meta}

    @classmethod
    def load(cls, path: Path) -> "SelectorModel":
        try:
            data = json.loads(path.read_text())
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, not {FORMAT!r}")
            if data["features"] != list(FEATURES):
                raise ConfigurationError(f"{path} was trained on features {data['features']}; this spider computes "
                                         f"{list(FEATURES)}: retrain it with `spider train-selector`")
            return cls(str(data["version"]), {o: Weights.from_json(w) for o, w in data["weights"].items()},
                       {k: v for k, v in data.items() if k not in _FIELDS})
        except FileNotFoundError:
            raise ConfigurationError(f"no learned selector model at {path} (train one with `spider train-selector`)") from None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigurationError(f"{path} is not a learned selector model: {exc}") from None


_FIELDS = {"format", "version", "model", "features", "weights"}


def model_path(settings: Settings) -> Path:
    """The model file the settings name (SPIDER_LEARNED_MODEL), else the shipped one."""
    return Path(settings.learned_model or SHIPPED_MODEL)


class LearnedSelector:
    """Admits a candidate when the model's probability that it must change reaches the trained threshold."""

    uses_budget = True
    needs_lexical = True

    def __init__(self, model: SelectorModel | None = None) -> None:
        self.model = model or SelectorModel.load(SHIPPED_MODEL)
        self.name = f"learned (logistic regression {self.model.version})"

    @classmethod
    def of(cls, settings: Settings) -> LearnedSelector:
        """The selector serving the model file `settings` name (SPIDER_LEARNED_MODEL, else the shipped one)."""
        return cls(SelectorModel.load(model_path(settings)))

    def decide(self, request: SelectionRequest) -> Decision:
        weights = self.model.weights.get(request.first_stage)
        if weights is None:
            raise ConfigurationError(f"the learned selector model {self.model.version} has no weights for a "
                                     f"{request.first_stage} first stage (it has {', '.join(self.model.weights)})")
        rows = request_features(request)
        threshold = weights.threshold_for(request.edges)
        admitted = [c.id for c, row in zip(request.candidates, rows) if weights.probability(row) >= threshold]
        return Decision(request.seed.id, [c.id for c in request.candidates], admitted=admitted)
