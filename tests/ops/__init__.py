"""Operations: exporter, alert rules, dashboard, real Prometheus."""
