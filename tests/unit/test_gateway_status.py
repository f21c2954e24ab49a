"""The /status page's arithmetic: summing scrapes and Prometheus's histogram_quantile."""

from __future__ import annotations

import pytest

from belot_platform.settings import Settings
from services.gateway.status import Scrape, bucket_quantile, summary, targets, to_html, to_text

WORKER = """# TYPE belot_table_command_seconds histogram
belot_table_command_seconds_bucket{by="bot",le="0.01"} 50.0
belot_table_command_seconds_bucket{by="bot",le="0.1"} 90.0
belot_table_command_seconds_bucket{by="bot",le="+Inf"} 100.0
belot_table_command_seconds_count{by="bot"} 100.0
belot_table_command_seconds_sum{by="bot"} 3.0
# TYPE belot_table_deals_total counter
belot_table_deals_total 7.0
# TYPE belot_tables_by_state gauge
belot_tables_by_state{state="playing"} 2.0
belot_tables_by_state{state="open"} 1.0
"""


def test_two_workers_are_summed() -> None:
    s = Scrape()
    s.add(WORKER)
    s.add(WORKER)
    s.up.update({"table-1": True, "table-2": False})
    data = summary(s)
    assert data["deals"] == 14
    assert data["tables_by_state"] == {"playing": 4, "open": 2}
    # 200 observations: the median is the 100th, at the top of the first bucket
    assert data["command_ms"]["p50"] == pytest.approx(10.0)
    assert data["services"] == {"table-1": True, "table-2": False}
    assert "table-2: DOWN" in to_text(data)
    assert "<td>deals</td><td> 14</td>" in to_html(data)


@pytest.mark.parametrize(
    "buckets,q,want",
    [
        ([(1.0, 10.0), (2.0, 20.0), (float("inf"), 20.0)], 0.5, 1.0),
        ([(1.0, 10.0), (2.0, 20.0), (float("inf"), 20.0)], 0.75, 1.5),
        ([(1.0, 0.0), (2.0, 10.0), (float("inf"), 10.0)], 0.5, 1.5),
        ([(1.0, 5.0), (float("inf"), 10.0)], 0.99, 1.0),  # in +Inf: the last finite bound
        ([(1.0, 0.0), (float("inf"), 0.0)], 0.5, None),  # no observations
    ],
)
def test_bucket_quantile_matches_prometheus(buckets, q, want) -> None:
    assert bucket_quantile(buckets, q) == (pytest.approx(want) if want is not None else None)


def test_targets_default_to_each_services_port_and_can_be_set() -> None:
    default = targets(Settings(), None)
    assert (
        default["gateway"] == "http://127.0.0.1:8080"
        and default["table"] == "http://127.0.0.1:8090"
    )
    given = targets(Settings(), "table-1=127.0.0.1:8090, table-2=10.0.0.2:8101")
    assert given == {"table-1": "http://127.0.0.1:8090", "table-2": "http://10.0.0.2:8101"}
