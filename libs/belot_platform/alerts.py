"""The platform's alert rules, defined once and used twice: Prometheus's rule file
``deploy/prometheus/alerts.yml`` is rendered from :data:`RULES` by
``tools/make_alerts.py`` (a test fails when the file differs from what it would write),
and the gateway's ``/status`` page shows each rule's state from the same values. What each
alert means and what to do about it: ``docs/alerts.md``.

Why the rules are Python values and not PromQL text. Prometheus pages; the status page is
for when no Prometheus (or no Grafana) is at hand, ``belot run`` first of all. With
``BELOT_PROMETHEUS_URL`` the page asks Prometheus for the state of each rule, so it says
what the pager says. Without it, the gateway must judge the rules itself from the
``/metrics`` it already scrapes, and that must not mean a second, hand-made PromQL
evaluator that would drift from Prometheus's. So a rule is written here as a small
structured value, a threshold on one of four measures, and its PromQL is *rendered* from
it:

- :class:`Gauge`: a gauge's value per series, or its max / min / sum over all of them;
- :class:`Increase`: how much a counter grew over a window, per series or summed;
- :class:`Share`: one counter's increase as a fraction of it plus another's;
- a rule holds when every one of its :class:`Threshold` holds (PromQL's ``and``, here
  only between measures with the same labels).

Each form is evaluated from scrapes by a few lines below, and rendered to the obvious
PromQL; the promtool test (``tests/prometheus/alerts_test.yml``) checks that PromQL fires
and resolves as intended, the unit tests check the local evaluation does the same on the
same numbers. An alert that needs more than these forms can say is not a "simple
threshold" and belongs in a rule file of its own, not on this page.

Where the local view differs from Prometheus, on purpose and said on the page:

- An increase is the growth between the oldest and newest scrape the gateway kept within
  the window (counter resets counted as Prometheus does), without Prometheus's
  extrapolation to the window's edges: with fewer than two scrapes it is unknown.
- ``for`` is measured over the page's own evaluations, which happen when someone looks
  (the HTML refreshes every 5 s): an alert seen holding at every evaluation for ``for``
  seconds is firing; a gap of more than :data:`MAX_GAP_S` between evaluations starts the
  clock again, since nobody saw what happened in between.
- A measure no scrape reports (its service down, or the metric not exported yet) is
  ``unknown``, not ``ok``: Prometheus would call such a rule inactive, which on a status
  page reads as "all is well" when nothing is known.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

#: Labels of one series, sorted by name.
Labels = tuple[tuple[str, str], ...]
#: One scrape: metric name -> labels -> value.
Samples = Mapping[str, Mapping[Labels, float]]

Op = Literal[">", ">=", "<", "=="]
Aggregation = Literal["max", "min", "sum"]
Severity = Literal["critical", "warning"]
State = Literal["firing", "pending", "ok", "unknown"]
#: How a rule's value reads: a count or seconds (whole numbers), or a fraction as a percentage.
Unit = Literal["count", "seconds", "percent"]

#: Seconds between two evaluations of the page beyond which ``for`` starts again.
MAX_GAP_S: Final = 30.0
#: The most scrapes kept for increases (a page refreshing every 5 s for the longest window).
MAX_HISTORY: Final = 1000


@dataclass(frozen=True, slots=True)
class Selector:
    """A metric, with label values it must (``equal``) or must not (``unequal``) have."""

    metric: str
    equal: Labels = ()
    unequal: Labels = ()

    def promql(self) -> str:
        matchers = [f'{k}="{v}"' for k, v in self.equal] + [f'{k}!="{v}"' for k, v in self.unequal]
        return self.metric + ("{" + ",".join(matchers) + "}" if matchers else "")

    def matches(self, labels: Labels) -> bool:
        have = dict(labels)
        return all(have.get(k, "") == v for k, v in self.equal) and all(
            have.get(k, "") != v for k, v in self.unequal
        )


@dataclass(frozen=True, slots=True)
class Gauge:
    """A gauge's value: each series (``agg`` None, labels kept) or one aggregate."""

    selector: Selector
    agg: Aggregation | None = None

    def promql(self) -> str:
        inner = self.selector.promql()
        return inner if self.agg is None else f"{self.agg}({inner})"


@dataclass(frozen=True, slots=True)
class Increase:
    """How much a counter grew over the last ``window_s`` seconds: each series, or the
    sum over every series (``total``)."""

    selector: Selector
    window_s: int
    total: bool = True

    def promql(self) -> str:
        inner = f"increase({self.selector.promql()}[{duration(self.window_s)}])"
        return f"sum({inner})" if self.total else inner


@dataclass(frozen=True, slots=True)
class Share:
    """``part``'s increase over ``window_s`` as a fraction of ``part``'s and ``rest``'s
    together (NaN when neither grew), e.g. the matches dealt by fallback among all."""

    part: str
    rest: str
    window_s: int

    def promql(self) -> str:
        part = Increase(Selector(self.part), self.window_s).promql()
        rest = Increase(Selector(self.rest), self.window_s).promql()
        return f"{part} / ({part} + {rest})"


Measure = Gauge | Increase | Share


@dataclass(frozen=True, slots=True)
class Threshold:
    measure: Measure
    op: Op
    limit: float

    def promql(self) -> str:
        return f"{self.measure.promql()} {self.op} {self.limit:g}"

    def holds(self, value: float) -> bool:
        if self.op == ">":
            return value > self.limit
        if self.op == ">=":
            return value >= self.limit
        if self.op == "<":
            return value < self.limit
        return value == self.limit


@dataclass(frozen=True, slots=True)
class Rule:
    """One alert. ``summary`` may name ``{value}`` (the first threshold's measure) and
    ``{<label>}`` (a label of the alerting series); the rest is plain text."""

    name: str
    when: tuple[Threshold, ...]
    for_s: int
    severity: Severity
    unit: Unit
    summary: str
    meaning: str
    why: str
    action: str

    @property
    def expr(self) -> str:
        return " and ".join(t.promql() for t in self.when)

    @property
    def anchor(self) -> str:
        """The rule's section in docs/alerts.md (its heading is the rule's name)."""
        return self.name.lower()

    def summary_template(self) -> str:
        """``summary`` in Prometheus's template language."""
        value = {
            "percent": "{{ $value | humanizePercentage }}",
            "count": '{{ $value | printf "%.0f" }}',
            "seconds": '{{ $value | printf "%.0f" }}',
        }[self.unit]
        out = self.summary.replace("{value}", value)
        for label in _placeholders(self.summary) - {"value"}:
            out = out.replace("{" + label + "}", "{{ $labels." + label + " }}")
        return out

    def render_summary(self, labels: Labels, value: float | None) -> str:
        """``summary`` filled in as Prometheus fills in :meth:`summary_template`."""
        given = dict(labels)
        out = self.summary.replace("{value}", format_value(value, self.unit))
        for label in _placeholders(self.summary) - {"value"}:
            out = out.replace("{" + label + "}", given.get(label, ""))
        return out


def _placeholders(text: str) -> set[str]:
    names, rest = set(), text
    while "{" in rest:
        _, _, rest = rest.partition("{")
        name, _, rest = rest.partition("}")
        names.add(name)
    return names


def format_value(value: float | None, unit: Unit) -> str:
    """A rule's value as its summary shows it (Prometheus's ``printf "%.0f"`` and
    ``humanizePercentage``, which prints four significant digits)."""
    if value is None or math.isnan(value):
        return "-"
    if unit == "percent":
        return f"{value * 100:.4g}%"
    return f"{value:.0f}"


def duration(seconds: int) -> str:
    """Seconds as a Prometheus duration: 1800 -> 30m."""
    if seconds % 3600 == 0:
        return f"{seconds // 3600}h"
    if seconds % 60 == 0:
        return f"{seconds // 60}m"
    return f"{seconds}s"


def _gauge(metric: str, agg: Aggregation | None = None, **equal: str) -> Gauge:
    return Gauge(Selector(metric, tuple(sorted(equal.items()))), agg)


RULES: Final[tuple[Rule, ...]] = (
    Rule(
        name="BelotMatchStuck",
        when=(Threshold(_gauge("belot_randomness_oldest_due_seconds", "max"), ">", 60),),
        for_s=0,
        severity="critical",
        unit="seconds",
        summary="Work due in the randomness service has waited {value} s: a match is stuck",
        meaning=(
            "The randomness service has work that is due and not done: a seed window to "
            "close, a drand round to use or fall back from, a deck to hand out, a server seed "
            "to reveal. The match waits with it, and nobody at its table can play."
        ),
        why=(
            "Due work is normally done within a second of falling due (the fallback itself "
            "comes 5 s after the drand round's time). After a failure the timers try again "
            "on their next tick, so a PostgreSQL or NATS outage of 30 s delays work by about "
            "that long; 60 s is past such an outage and its retries. The gauge is itself an "
            "age, so the rule has no `for`: one would only add its length to the delay."
        ),
        action=(
            "Read the randomness service's log for the match's errors and its /readyz (a "
            "supervised task that is down is named there, and BelotTaskDown fires); check "
            "PostgreSQL and NATS. Restarting the randomness service drives every pending "
            "match from the log again."
        ),
    ),
    Rule(
        name="BelotRandomnessDown",
        when=(Threshold(_gauge("up", job="randomness"), "==", 0),),
        for_s=30,
        severity="critical",
        unit="count",
        summary="The randomness service ({instance}) does not answer its scrape",
        meaning=(
            "The randomness service is down, hung or unreachable. While it is, no new match "
            "gets its commitment and no match gets a deck: every table that is dealing "
            "freezes (and resumes, from the log, when the service is back)."
        ),
        why=(
            "30 s is six missed 5 s scrapes, not a blip, and a restart (shutdown within "
            "BELOT_SHUTDOWN_TIMEOUT, 10 s, then start-up) fits in it. Other services get a "
            "minute (BelotServiceDown); this one stops every deal, and tables should not "
            "stay frozen for a minute and a half unseen."
        ),
        action=(
            "`docker compose ps randomness` and its logs (or the pod's); restart it. Its "
            "matches resume from the log: nothing is lost, the decks are the same."
        ),
    ),
    Rule(
        name="BelotTablesWaitingForRandomness",
        when=(Threshold(_gauge("belot_table_randomness_wait_seconds", "max"), ">", 30),),
        for_s=0,
        severity="critical",
        unit="seconds",
        summary="A table has waited {value} s for an answer from the randomness service",
        meaning=(
            "A table worker asks the randomness service for a match's commitment or deck and "
            "gets no answer: the service is down, or up but unreachable over NATS (its "
            "connection, its NATS user, a partition). The table keeps asking; nobody at it "
            "can play meanwhile."
        ),
        why=(
            "A request is answered in milliseconds and the table asks again every 0.5 s: "
            "30 s without an answer is no slow reply. The same 30 s as BelotRandomnessDown, "
            "so both fire when the service is simply down; this one also fires when it runs "
            "but the tables cannot reach it. The gauge is an age: no `for`."
        ),
        action=(
            "If BelotRandomnessDown fires too, see there. Otherwise the service runs but does "
            "not answer the tables: its /readyz (NATS connection), its NATS user's "
            "permissions (deploy/nats/auth.conf), NATS itself."
        ),
    ),
    Rule(
        name="BelotRelayLagging",
        when=(Threshold(_gauge("belot_eventlog_relay_lag_events", "max"), ">", 1000),),
        for_s=60,
        severity="critical",
        unit="count",
        summary="{value} events are in the log but not yet published on NATS",
        meaning=(
            "The outbox relay is behind: events are in the log but not on NATS, and the "
            "gateway delivers to WebSockets only what the relay publishes, so players see "
            "their tables late (the log itself is sound)."
        ),
        why=(
            "The relay reads up to 500 events at a time and publishes them in milliseconds, "
            "so a healthy relay is less than one batch behind at any scrape. More than two "
            "batches behind for a whole minute means it cannot keep up or has stopped."
        ),
        action=(
            "Look at the relay task (/readyz of the relay service; BelotTaskDown with "
            "task=relay), JetStream (acknowledgements, the stream's limits) and PostgreSQL. "
            "A relay resumes from the stream's last message when it restarts: no event is "
            "lost or doubled."
        ),
    ),
    Rule(
        name="BelotRelayStalled",
        when=(
            Threshold(_gauge("belot_eventlog_relay_lag_events", "max"), ">", 0),
            Threshold(Increase(Selector("belot_eventlog_relay_published_total"), 120), "==", 0),
        ),
        for_s=60,
        severity="critical",
        unit="count",
        summary="{value} events wait and the relay has published nothing for 2 minutes",
        meaning=(
            "Events wait to be published and no relay has published any for two minutes: "
            "it is stopped or stuck, whatever the traffic (a quiet platform would take long "
            "to reach BelotRelayLagging's 1,000 events). WebSockets receive nothing."
        ),
        why=(
            "A live relay publishes a waiting event within a second: lag with nothing "
            "published for two minutes (then held for one more) is no load effect. Two "
            "minutes span many scrapes, so one missed scrape cannot make it fire."
        ),
        action="As for BelotRelayLagging.",
    ),
    Rule(
        name="BelotDrandFallbacks",
        when=(
            Threshold(
                Share("belot_drand_fallbacks_total", "belot_drand_rounds_used_total", 1800),
                ">",
                0.2,
            ),
            Threshold(Increase(Selector("belot_drand_fallbacks_total"), 1800), ">=", 3),
        ),
        for_s=0,
        severity="warning",
        unit="percent",
        summary="{value} of the matches dealt in the last 30 minutes fell back from drand",
        meaning=(
            "Matches are dealt without their drand value: their decks come from the server's "
            "and the seats' seeds alone, still unpredictable to each party but without the "
            "public randomness that lets anyone check the deal. Each match's record says so."
        ),
        why=(
            "drand's quicknet publishes every 3 s through several relays, and a match falls "
            "back only when no relay gave its round within 5 s of its time. One or two in "
            "half an hour is a relay's hiccup (and one hiccup can catch every match due in "
            "that round); a fifth of the matches, three at least, is drand being "
            "unreachable from here."
        ),
        action=(
            "From the randomness service's host, reach the relays of BELOT_DRAND_URLS (egress "
            "firewall, DNS, TLS, proxy); belot_drand_relay_errors_total{relay} says which "
            "fail and belot_drand_beacons_total{result} how."
        ),
    ),
    Rule(
        name="BelotLeaseChurn",
        when=(Threshold(Increase(Selector("belot_table_leases_lost_total"), 600), ">", 5),),
        for_s=0,
        severity="warning",
        unit="count",
        summary="Table workers lost {value} table leases in 10 minutes",
        meaning=(
            "Live table workers keep losing their leases: each loss hands a table to another "
            "worker, which replays it from the log, and its moves wait meanwhile. Many in a "
            "row slow every match."
        ),
        why=(
            "A live worker loses a lease only when it could not renew it for a whole "
            "BELOT_LEASE_TTL while renewing every third of it: NATS slow or unreachable, a "
            "worker starved of CPU, a bucket whose TTL is not the configured one. A worker "
            "that dies counts nothing here and one that stops releases its tables, so more "
            "than 5 in 10 minutes is no deploy and no chance."
        ),
        action=(
            "Compare the KV bucket's TTL with BELOT_LEASE_TTL (`nats kv info "
            "belot_table_leases`); read the workers' 'lease lost' log lines (they say why); "
            "check NATS latency and the workers' CPU. belot_table_claims_total{how} shows "
            "who takes the tables over."
        ),
    ),
    Rule(
        name="BelotTaskDown",
        when=(Threshold(_gauge("belot_task_up"), "==", 0),),
        for_s=60,
        severity="critical",
        unit="count",
        summary="Task {task} is down on {instance}",
        meaning=(
            "A supervised long-running task (the relay, a log follower, timers, clocks, "
            "lease keepers, scans) failed and has not come back: what it does is not being "
            "done on that process. The process's /readyz says not ready and names it."
        ),
        why=(
            "The supervisor restarts a failed task at once and then with a growing back-off; "
            "down for a minute means it fails again at every restart, usually on a "
            "dependency that is down."
        ),
        action=(
            "The process's log has the stack of every failure of the task; fix what it names "
            "(often PostgreSQL or NATS). The task comes back by itself once its next restart "
            "succeeds."
        ),
    ),
    Rule(
        name="BelotTaskRestarting",
        when=(
            Threshold(Increase(Selector("belot_task_restarts_total"), 900, total=False), ">", 3),
        ),
        for_s=0,
        severity="warning",
        unit="count",
        summary="Task {task} on {instance} restarted {value} times in 15 minutes",
        meaning=(
            "A supervised task keeps failing and being restarted: it works between failures, "
            "but whatever makes it fail comes back."
        ),
        why=(
            "A restart now and then is the supervisor doing its job (a dependency blinked, "
            "the log says which); more than 3 in 15 minutes is a fault that returns, which "
            "a person should look at before it turns into BelotTaskDown."
        ),
        action="The process's log has the stack of every failure: look for what they share.",
    ),
    Rule(
        name="BelotServiceDown",
        when=(Threshold(Gauge(Selector("up", unequal=(("job", "randomness"),))), "==", 0),),
        for_s=60,
        severity="critical",
        unit="count",
        summary="{job} ({instance}) does not answer its scrape",
        meaning=(
            "A service's process is down, hung or unreachable. The gateway: players cannot "
            "reach the platform. A table worker: the others take its tables over within a "
            "lease TTL. Verify, rating, tournament: their pages and results wait."
        ),
        why=(
            "A minute is twelve missed 5 s scrapes, longer than any restart (shutdown within "
            "BELOT_SHUTDOWN_TIMEOUT, 10 s, then start-up). The randomness service has its "
            "own, shorter rule, BelotRandomnessDown."
        ),
        action=(
            "`docker compose ps` and the service's logs (or its pod's events); /healthz and "
            "/readyz on it say whether it runs and what it lacks."
        ),
    ),
)


def rules_document(rules: Iterable[Rule] = RULES) -> dict[str, object]:
    """The rule file's content (``groups:``), as Prometheus reads it."""

    def one(rule: Rule) -> dict[str, object]:
        out: dict[str, object] = {"alert": rule.name, "expr": rule.expr}
        if rule.for_s:
            out["for"] = duration(rule.for_s)
        out["labels"] = {"severity": rule.severity}
        out["annotations"] = {
            "summary": rule.summary_template(),
            "description": rule.meaning,
            "threshold": rule.why,
            "action": rule.action,
            "runbook": f"docs/alerts.md#{rule.anchor}",
        }
        return out

    return {"groups": [{"name": "belot", "rules": [one(r) for r in rules]}]}


def measured(m: Measure) -> set[str]:
    """The metrics a measure reads."""
    return {m.part, m.rest} if isinstance(m, Share) else {m.selector.metric}


def metric_names(rule: Rule) -> set[str]:
    """Every metric a rule's expression reads (the names in its measures)."""
    return {name for t in rule.when for name in measured(t.measure)}


# ---------------------------------------------------------------------- local evaluation


@dataclass(frozen=True, slots=True)
class Alert:
    """One series for which a rule holds."""

    labels: Labels
    value: float
    state: Literal["firing", "pending"]


@dataclass(frozen=True, slots=True)
class RuleStatus:
    """A rule's state on the page: ``value`` and ``labels`` are its most alarming series'
    (an alerting one if any); ``alerts`` every series for which it holds."""

    rule: Rule
    state: State
    value: float | None = None
    labels: Labels = ()
    alerts: tuple[Alert, ...] = ()
    note: str = ""

    def to_json(self) -> dict[str, object]:
        value = None if self.value is None or math.isnan(self.value) else self.value
        return {
            "name": self.rule.name,
            "state": self.state,
            "severity": self.rule.severity,
            "value": value,
            "labels": dict(self.labels),
            "summary": self.rule.render_summary(self.labels, self.value),
            "alerts": [
                {"labels": dict(a.labels), "value": a.value, "state": a.state} for a in self.alerts
            ],
            "note": self.note,
            "runbook": f"docs/alerts.md#{self.rule.anchor}",
        }


def job_of(target: str) -> str:
    """The Prometheus job of a status target: its name without a replica number
    (``table-2`` -> ``table``), as deploy/prometheus/prometheus.yml names the jobs."""
    name, dash, number = target.rpartition("-")
    return name if dash and number.isdigit() else target


def with_target(scrapes: Mapping[str, Samples | None]) -> dict[str, dict[Labels, float]]:
    """Scrapes by target as Prometheus stores them: ``job`` and ``instance`` labels on
    every series, and ``up`` (1, or 0 for a target whose scrape failed: None)."""
    out: dict[str, dict[Labels, float]] = {}
    for target, samples in scrapes.items():
        own = (("instance", target), ("job", job_of(target)))
        out.setdefault("up", {})[own] = 0.0 if samples is None else 1.0
        for metric, series in (samples or {}).items():
            for labels, value in series.items():
                key = tuple(sorted({**dict(labels), **dict(own)}.items()))
                out.setdefault(metric, {})[key] = value
    return out


class Evaluator:
    """Judges :data:`RULES` from successive scrapes, keeping what increases and ``for``
    need: the counters the rules read, over the longest window, and since when each
    alert has held."""

    def __init__(self, rules: tuple[Rule, ...] = RULES) -> None:
        self.rules = rules
        over_time = [t.measure for r in rules for t in r.when
                     if isinstance(t.measure, Increase | Share)]  # fmt: skip
        self._counters = {name for m in over_time for name in measured(m)}
        self._window = max((m.window_s for m in over_time), default=0)
        self._history: deque[tuple[float, dict[str, dict[Labels, float]]]] = deque(
            maxlen=MAX_HISTORY
        )
        self._since: dict[tuple[str, Labels], float] = {}
        self._last: float | None = None

    def observe(self, now: float, scrapes: Mapping[str, Samples | None]) -> list[RuleStatus]:
        """Each rule's state after one scrape of every target at ``now`` (seconds, any
        monotonic clock); ``scrapes`` maps each target to its samples, None if down."""
        samples = with_target(scrapes)
        self._history.append((now, {m: dict(samples.get(m, {})) for m in self._counters}))
        while self._history and self._history[0][0] < now - self._window:
            self._history.popleft()
        if self._last is not None and now - self._last > MAX_GAP_S:
            self._since.clear()
        self._last = now
        return [self._judge(rule, now, samples) for rule in self.rules]

    def _judge(self, rule: Rule, now: float, samples: Samples) -> RuleStatus:
        first, *rest = rule.when
        values = self._measure(first.measure, now, samples)
        if values is None:
            self._forget(rule)
            return RuleStatus(rule, "unknown", note=_unknown_note(first.measure))
        holding = {k: v for k, v in values.items() if first.holds(v)}
        for t in rest:
            if not holding:
                break
            other = self._measure(t.measure, now, samples)
            if other is None:
                self._forget(rule)
                top = worst(first, values)
                return RuleStatus(rule, "unknown", values[top], top, note=_unknown_note(t.measure))
            holding = {k: v for k, v in holding.items() if k in other and t.holds(other[k])}
        alerts: list[Alert] = []
        for labels, value in sorted(holding.items()):
            since = self._since.setdefault((rule.name, labels), now)
            state: Literal["firing", "pending"] = (
                "firing" if now - since >= rule.for_s else "pending"
            )
            alerts.append(Alert(labels, value, state))
        for key in [k for k in self._since if k[0] == rule.name and k[1] not in holding]:
            del self._since[key]
        if alerts:
            alarm = next((a for a in alerts if a.state == "firing"), alerts[0])
            return RuleStatus(rule, alarm.state, alarm.value, alarm.labels, tuple(alerts))
        top = worst(first, values)
        return RuleStatus(rule, "ok", values[top], top)

    def _forget(self, rule: Rule) -> None:
        for key in [k for k in self._since if k[0] == rule.name]:
            del self._since[key]

    def _measure(self, m: Measure, now: float, samples: Samples) -> dict[Labels, float] | None:
        """The measure's value by series (one series with no labels for an aggregate);
        None when no scrape reports it, or an increase has fewer than two scrapes."""
        if isinstance(m, Gauge):
            found = [(k, v) for k, v in samples.get(m.selector.metric, {}).items()
                     if m.selector.matches(k)]  # fmt: skip
            if not found:
                return None
            if m.agg is None:
                return dict(found)
            values = [v for _, v in found]
            if m.agg == "max":
                return {(): max(values)}
            return {(): min(values) if m.agg == "min" else sum(values)}
        if isinstance(m, Increase):
            per_series = self._increases(m.selector, m.window_s, now)
            if not per_series:
                return None
            return {(): sum(per_series.values())} if m.total else per_series
        part = self._increases(Selector(m.part), m.window_s, now)
        rest = self._increases(Selector(m.rest), m.window_s, now)
        if not part or not rest:
            return None
        p, r = sum(part.values()), sum(rest.values())
        return {(): p / (p + r) if p + r else math.nan}

    def _increases(self, selector: Selector, window_s: int, now: float) -> dict[Labels, float]:
        """Each matching series' growth over the scrapes kept within the window, a drop
        read as a counter reset (the new value is all growth), as Prometheus reads it."""
        seen: dict[Labels, list[float]] = {}
        for t, counters in self._history:
            if t < now - window_s:
                continue
            for labels, value in counters.get(selector.metric, {}).items():
                if selector.matches(labels):
                    seen.setdefault(labels, []).append(value)
        out = {}
        for labels, values in seen.items():
            if len(values) < 2:
                continue
            out[labels] = sum(b - a if b >= a else b for a, b in itertools.pairwise(values))
        return out


def worst(t: Threshold, values: Mapping[Labels, float]) -> Labels:
    """The series nearest to (or furthest past) the threshold."""

    def badness(item: tuple[Labels, float]) -> float:
        value = item[1]
        if math.isnan(value):
            return -math.inf
        if t.op in (">", ">="):
            return value
        if t.op == "<":
            return -value
        return -abs(value - t.limit)

    return max(sorted(values.items()), key=badness)[0]


def _unknown_note(m: Measure) -> str:
    if isinstance(m, Gauge):
        return f"no scrape reports {m.selector.metric}"
    return "an increase needs two scrapes within its window"
