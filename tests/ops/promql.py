"""Helpers of the ops tests: the metric names Tapis exports, and the
metric names a PromQL expression (or a Grafana query) refers to."""

from __future__ import annotations

import re

#: Series Prometheus itself makes for every target (valid in queries).
SYNTHETIC = frozenset({"up", "scrape_duration_seconds", "scrape_samples_scraped"})

_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
    "summary": ("_sum", "_count", "_created", ""),
    "gauge": ("",),
    "info": ("_info",),
    "stateset": ("",),
    "gaugehistogram": ("_bucket", "_gsum", "_gcount"),
    "unknown": ("",),
}


def exported_metric_names() -> frozenset[str]:
    """Every series name a Tapis process exposes: the metric objects of
    :mod:`services.metrics` (collected through prometheus_client's default
    registry, expanded by type: counters ``_total``, histograms
    ``_bucket``/``_sum``/``_count``) plus the exporter's gauges."""
    from prometheus_client import REGISTRY

    import services.metrics  # noqa: F401  (registers the metric objects)
    from services.exporter import METRIC_NAMES

    names: set[str] = set()
    for family in REGISTRY.collect():
        if not family.name.startswith("tapis_"):
            continue
        for suffix in _SUFFIXES[family.type]:
            names.add(family.name + suffix)
    return frozenset(names | set(METRIC_NAMES))


_KEYWORDS = frozenset({
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset",
    "inf", "nan", "atan2",
})
_GRAFANA_VARS = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h", "${__range}": "1h"}


def substitute_grafana_variables(expr: str) -> str:
    """Replace Grafana's interval variables by durations and ``$var`` by
    ``.*`` so that the expression is plain PromQL."""
    for var, value in _GRAFANA_VARS.items():
        expr = expr.replace(var, value)
    return re.sub(r"\$\{?\w+\}?", ".*", expr)


def metric_names(expr: str) -> set[str]:
    """The metric names an expression selects.  Removes string literals,
    label matchers ``{...}``, ranges ``[...]`` and label lists of
    ``by/without/on/ignoring/group_*``, then keeps the identifiers that are
    neither functions (followed by ``(``), keywords nor numbers."""
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    s = re.sub(r"\{[^}]*\}", " ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", s)
    names = set()
    for m in re.finditer(r"(?<![\w.$])([A-Za-z_:][A-Za-z0-9_:]*)(?!\w)(\s*\()?", s):
        name, call = m.group(1), m.group(2)
        if call or name.lower() in _KEYWORDS:
            continue
        names.add(name)
    return names
