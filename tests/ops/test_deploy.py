"""The deploy files agree with the code: every role's command line parses
with the real `tapis` CLI, every setting is a real Settings field, the
scrape configs and the proxy point at the services that exist, probes and
resources are set, the Redis of compose keeps an append-only file, and
every role that reads or writes the archive gets its URL, pointing at the
PostgreSQL the files run, whose schema is migrated before they start."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
import yaml

from services.cli import app
from services.config import Settings
from tests.ops.conftest import DEPLOY

K8S = DEPLOY / "k8s"
SETTINGS_ENV = {f"TAPIS_{name.upper()}" for name in Settings.model_fields}
TAPIS_ROLES = {"gateway", "worker", "bots", "exporter"}


def parse_cli(args: list[str]):
    """Parse a `tapis ...` command line with the real CLI (nothing runs);
    returns the click context of the command (of the subcommand for a
    group: ``archive migrate`` gives ``migrate``'s).  Raises the CLI's
    usage error on an unknown option or a bad value, KeyError on an
    unknown command."""
    command = typer.main.get_command(app)
    name, rest = "tapis", list(args)
    while hasattr(command, "commands"):  # a group (typer's own click): its subcommand
        name, *rest = rest
        command = command.commands[name]
    return command.make_context(name, rest)


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


@pytest.fixture(scope="module")
def k8s() -> list[dict]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                doc["_file"] = path.name
                docs.append(doc)
    return docs


def test_parse_cli_rejects_unknown_options():
    with pytest.raises(Exception, match="No such option"):
        parse_cli(["worker", "--no-such-option", "1"])
    with pytest.raises(KeyError):
        parse_cli(["no-such-role"])
    assert parse_cli(["exporter", "--port", "9999"]).params["port"] == 9999


# -- compose ------------------------------------------------------------------
def test_compose_has_every_role(compose):
    services = compose["services"]
    assert set(services) == {"redis", "postgres", "archive-migrate", "gateway-1", "gateway-2", "proxy", "worker",
                             "bots", "exporter", "prometheus", "grafana"}
    assert services["worker"]["deploy"]["replicas"] == 2
    redis_cmd = services["redis"]["command"]
    assert redis_cmd[redis_cmd.index("--appendonly") + 1] == "yes"
    assert "redis-data:/data" in services["redis"]["volumes"]


def test_compose_commands_and_settings_are_real(compose):
    roles = {}
    for name, svc in compose["services"].items():
        if svc.get("image", "").startswith("tapis:"):
            ctx = parse_cli(svc["command"])
            roles[name] = ctx.info_name
            assert set(svc["environment"]) <= SETTINGS_ENV, name
            assert svc["environment"]["TAPIS_REDIS_URL"] == "redis://redis:6379/0"
            assert svc["read_only"] is True and svc["cap_drop"] == ["ALL"]
    assert roles == {"gateway-1": "gateway", "gateway-2": "gateway", "worker": "worker", "bots": "bots",
                     "exporter": "exporter", "archive-migrate": "migrate"}


#: The roles that read or write the archive: the gateways read archived
#: tables and the history, the workers' archiver writes, the migration
#: creates the schema.  The bot workers and the exporter never open it.
ARCHIVE_ROLES = {"gateway", "worker", "migrate"}


def test_compose_runs_postgresql_for_the_archive(compose):
    """PostgreSQL with a volume and a health check; every role that needs
    the archive has a URL naming that server, its user, database and
    password; the schema is migrated once PostgreSQL is healthy and before
    the gateways and workers start; the exporter does not wait for it."""
    from sqlalchemy.engine import make_url

    from services.config import archive_enabled

    services = compose["services"]
    pg = services["postgres"]
    assert pg["image"].startswith("postgres:15")
    assert "postgres-data:/var/lib/postgresql/data" in pg["volumes"]
    assert "postgres-data" in compose["volumes"]
    assert pg["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    assert not pg.get("ports")  # reachable from the compose network only
    env = pg["environment"]
    needing = {name for name, svc in services.items()
               if svc.get("image", "").startswith("tapis:") and parse_cli(svc["command"]).info_name in ARCHIVE_ROLES}
    assert needing == {"gateway-1", "gateway-2", "worker", "archive-migrate"}
    for name in needing:
        raw = services[name]["environment"]["TAPIS_ARCHIVE_URL"]
        url = make_url(raw.replace("${POSTGRES_PASSWORD:-change-me}", "change-me"))
        assert url.get_backend_name() == "postgresql" and url.host == "postgres" and url.port == 5432, name
        assert (url.username, url.database) == (env["POSTGRES_USER"], env["POSTGRES_DB"]), name
        assert "${POSTGRES_PASSWORD:-change-me}" in raw, name  # the same password as the server's
        assert env["POSTGRES_PASSWORD"] == "${POSTGRES_PASSWORD:-change-me}"
        assert archive_enabled(Settings(archive_url=raw)), name
    migrate = services["archive-migrate"]
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert migrate["restart"] == "no"
    for name in ("gateway-1", "gateway-2", "worker", "bots"):
        assert services[name]["depends_on"]["archive-migrate"] == {"condition": "service_completed_successfully"}
        assert services[name]["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert services["exporter"]["depends_on"] == {"redis": {"condition": "service_healthy"}}


def test_compose_ports_are_loopback_only(compose):
    for name, svc in compose["services"].items():
        for port in svc.get("ports", []):
            assert port.startswith("127.0.0.1:"), (name, port)


def _role_ports(compose) -> dict[str, int]:
    ports = {}
    for name, svc in compose["services"].items():
        if svc.get("image", "").startswith("tapis:"):
            params = parse_cli(svc["command"]).params
            ports[name] = params.get("port") or params.get("metrics_port")
    return ports


def test_prometheus_scrapes_every_role_where_it_listens(compose):
    prom = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in prom["scrape_configs"]}
    assert {"tapis-gateway", "tapis-worker", "tapis-bots", "tapis-exporter"} <= set(jobs)
    ports = _role_ports(compose)
    assert jobs["tapis-gateway"]["static_configs"][0]["targets"] == [
        f"gateway-1:{ports['gateway-1']}", f"gateway-2:{ports['gateway-2']}"]
    assert jobs["tapis-exporter"]["static_configs"][0]["targets"] == [f"exporter:{ports['exporter']}"]
    for job, service in (("tapis-worker", "worker"), ("tapis-bots", "bots")):
        (sd,) = jobs[job]["dns_sd_configs"]
        assert sd["names"] == [service] and sd["port"] == ports[service]
    assert prom["rule_files"] == ["alerts.yml"]
    # compose mounts this folder where the config says the rules are
    assert "./prometheus:/etc/prometheus:ro" in compose["services"]["prometheus"]["volumes"]


def test_proxy_balances_both_gateways(compose):
    conf = (DEPLOY / "nginx" / "nginx.conf").read_text()
    upstream = re.search(r"upstream tapis_gateways \{(.*?)\}", conf, re.DOTALL).group(1)
    servers = re.findall(r"server (\S+?)[ ;]", upstream)
    ports = _role_ports(compose)
    assert servers == [f"gateway-1:{ports['gateway-1']}", f"gateway-2:{ports['gateway-2']}"]
    listen = re.search(r"listen (\d+);", conf).group(1)
    assert compose["services"]["proxy"]["ports"] == [f"127.0.0.1:8000:{listen}"]
    assert "./nginx/nginx.conf:/etc/nginx/nginx.conf:ro" in compose["services"]["proxy"]["volumes"]
    stream = re.search(r"location ~ \^/tables/\[\^/\]\+/stream\$ \{(.*?)\}", conf, re.DOTALL).group(1)
    assert "proxy_buffering off;" in stream


# -- Dockerfile ---------------------------------------------------------------
def test_dockerfile_one_image_non_root():
    text = (DEPLOY / "Dockerfile").read_text()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    froms = [ln for ln in lines if ln.startswith("FROM ")]
    assert len(froms) == 2 and all("-slim" in f for f in froms)
    final = lines[lines.index(froms[-1]):]
    users = [ln for ln in final if ln.startswith("USER ")]
    assert users and users[-1].split()[1].split(":")[0] not in ("0", "root")
    assert 'ENTRYPOINT ["tapis"]' in final
    copied = {ln.split()[1] for ln in lines if ln.startswith("COPY ") and "--from" not in ln}
    # exactly what pip needs: pyproject's readme and both packages
    assert copied == {"pyproject.toml", "shared", "services"}
    assert "README.md" in next(ln for ln in lines if ln.startswith("COPY pyproject.toml"))


# -- Kubernetes ---------------------------------------------------------------
def _by_kind(k8s, kind):
    return {d["metadata"]["name"]: d for d in k8s if d["kind"] == kind}


def test_k8s_deployment_per_role_with_probes_and_requests(k8s):
    deployments = _by_kind(k8s, "Deployment")
    assert set(deployments) == {f"tapis-{r}" for r in TAPIS_ROLES}
    for name, dep in deployments.items():
        pod = dep["spec"]["template"]
        assert dep["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
        (c,) = pod["spec"]["containers"]
        ctx = parse_cli(c["args"])
        assert f"tapis-{ctx.info_name}" == name
        port = ctx.params.get("port") or ctx.params.get("metrics_port")
        assert pod["metadata"]["annotations"]["prometheus.io/port"] == str(port)
        assert {p["containerPort"] for p in c["ports"]} == {port}
        requests = c["resources"]["requests"]
        assert requests["cpu"] and requests["memory"], name
        assert c["livenessProbe"] and c["readinessProbe"], name
        assert c["envFrom"] == [{"configMapRef": {"name": "tapis-settings"}}]
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
        assert c["securityContext"]["readOnlyRootFilesystem"] is True
    gw = deployments["tapis-gateway"]["spec"]["template"]["spec"]["containers"][0]
    assert gw["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert gw["livenessProbe"]["httpGet"]["path"] == "/healthz"
    worker = deployments["tapis-worker"]["spec"]["template"]["spec"]["containers"][0]
    assert worker["livenessProbe"]["httpGet"]["path"] == "/healthz"  # loop heartbeats, not just "it answers"


def _env(container: dict) -> dict[str, dict]:
    return {e["name"]: e for e in container.get("env", [])}


def test_k8s_archive_secret_postgres_and_migration(k8s):
    """The Secret tapis-archive holds the archive's URL and the password of
    the PostgreSQL StatefulSet, which that URL names (Service, port, user,
    database, password); the gateways, the workers and the migration Job
    read the URL from it, the bot workers and the exporter do not need it;
    the Job runs `tapis archive migrate` like the other pods run theirs."""
    from sqlalchemy.engine import make_url

    secrets = _by_kind(k8s, "Secret")
    data = secrets["tapis-archive"]["stringData"]
    url = make_url(data["TAPIS_ARCHIVE_URL"])
    (pg,) = _by_kind(k8s, "StatefulSet")["postgres"]["spec"]["template"]["spec"]["containers"]
    pg_env = _env(pg)
    svc = _by_kind(k8s, "Service")["postgres"]
    assert url.get_backend_name() == "postgresql"
    assert url.host == f"{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc"
    assert url.port == svc["spec"]["ports"][0]["port"] == pg["ports"][0]["containerPort"] == 5432
    assert url.username == pg_env["POSTGRES_USER"]["value"] and url.database == pg_env["POSTGRES_DB"]["value"]
    assert url.password == data["POSTGRES_PASSWORD"]
    assert pg_env["POSTGRES_PASSWORD"]["valueFrom"] == {
        "secretKeyRef": {"name": "tapis-archive", "key": "POSTGRES_PASSWORD"}}
    sts = _by_kind(k8s, "StatefulSet")["postgres"]
    assert svc["spec"]["selector"].items() <= sts["spec"]["template"]["metadata"]["labels"].items()
    (mount,) = [m for m in pg["volumeMounts"] if m["name"] == "data"]
    assert pg_env["PGDATA"]["value"].startswith(mount["mountPath"] + "/")
    assert sts["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"

    from_secret = {"valueFrom": {"secretKeyRef": {"name": "tapis-archive", "key": "TAPIS_ARCHIVE_URL"}}}
    pods = {name: d["spec"]["template"]["spec"] for name, d in _by_kind(k8s, "Deployment").items()}
    (job,) = _by_kind(k8s, "Job").values()
    pods[job["metadata"]["name"]] = job["spec"]["template"]["spec"]
    needing = set()
    for name, pod in pods.items():
        (c,) = pod["containers"]
        role = parse_cli(c["args"]).info_name
        env = _env(c)
        if role in ARCHIVE_ROLES:
            needing.add(name)
            assert {k: v for k, v in env["TAPIS_ARCHIVE_URL"].items() if k != "name"} == from_secret, name
    assert needing == {"tapis-gateway", "tapis-worker", "tapis-archive-migrate"}
    assert "TAPIS_ARCHIVE_URL" not in _by_kind(k8s, "ConfigMap")["tapis-settings"]["data"]  # a password: a Secret

    assert job["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"
    assert job["spec"]["ttlSecondsAfterFinished"] > 0  # gone after a while: the next apply runs it again
    (c,) = job["spec"]["template"]["spec"]["containers"]
    assert c["args"] == ["archive", "migrate"] and c["image"].startswith("tapis:")
    assert c["envFrom"] == [{"configMapRef": {"name": "tapis-settings"}}]
    assert job["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["readOnlyRootFilesystem"] is True


def test_k8s_gateway_probe_paths_exist_in_the_app():
    from fakeredis.aioredis import FakeRedis

    from services.gateway.app import create_app

    paths = create_app(Settings(), FakeRedis()).openapi()["paths"]
    assert {"/readyz", "/healthz", "/metrics"} <= set(paths)


def test_k8s_service_hpa_and_configmap(k8s):
    (svc,) = [s for s in _by_kind(k8s, "Service").values() if s["metadata"]["name"] == "tapis-gateway"]
    dep = _by_kind(k8s, "Deployment")["tapis-gateway"]
    assert svc["spec"]["selector"].items() <= dep["spec"]["template"]["metadata"]["labels"].items()
    (hpa,) = _by_kind(k8s, "HorizontalPodAutoscaler").values()
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "tapis-worker"}
    assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    (cm,) = _by_kind(k8s, "ConfigMap").values()
    assert set(cm["data"]) <= SETTINGS_ENV
    assert {"TAPIS_REDIS_URL", "TAPIS_CLUSTER", "TAPIS_SHARDS"} <= set(cm["data"])
    # every value is one Settings accepts
    env = {k[len("TAPIS_"):].lower(): v for k, v in cm["data"].items()}
    settings = Settings(**env)
    assert settings.cluster is False and settings.shards == int(cm["data"]["TAPIS_SHARDS"])


def test_kustomization_lists_every_manifest(k8s):
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kust["resources"]) == files
    assert all(d["metadata"].get("namespace", "tapis") == "tapis" for d in k8s if d["kind"] != "Kustomization")


def _relabel(rules: list[dict], labels: dict[str, str]) -> dict[str, str] | None:
    """Prometheus relabelling (keep/drop/replace) of one target; RE2
    regexes are fully anchored, like Python's fullmatch."""
    labels = dict(labels)
    for r in rules:
        value = r.get("separator", ";").join(labels.get(s, "") for s in r["source_labels"])
        m = re.fullmatch(r.get("regex", "(.*)"), value)
        action = r.get("action", "replace")
        if action == "keep" and not m:
            return None
        if action == "drop" and m:
            return None
        if action == "replace" and m:
            repl = re.sub(r"\$(\d+)", lambda g, m=m: m.group(int(g.group(1))) or "", r.get("replacement", "$1"))
            labels[r["target_label"]] = repl
    return labels


def test_k8s_scrape_config_names_jobs_like_the_alerts(k8s):
    prom = yaml.safe_load((DEPLOY / "prometheus" / "prometheus-k8s.yml").read_text())
    (job,) = prom["scrape_configs"]
    for name, dep in _by_kind(k8s, "Deployment").items():
        pod = dep["spec"]["template"]["metadata"]
        labels = {"__address__": "10.1.2.3:8000", "__meta_kubernetes_pod_phase": "Running",
                  "__meta_kubernetes_pod_name": f"{name}-abc"}
        for k, v in pod["labels"].items():
            labels["__meta_kubernetes_pod_label_" + re.sub(r"[^a-zA-Z0-9_]", "_", k)] = v
        for k, v in pod["annotations"].items():
            labels["__meta_kubernetes_pod_annotation_" + re.sub(r"[^a-zA-Z0-9_]", "_", k)] = v
        out = _relabel(job["relabel_configs"], labels)
        assert out is not None, name
        assert out["job"] == name  # tapis-gateway, tapis-worker, ...
        assert out["__address__"] == f"10.1.2.3:{pod['annotations']['prometheus.io/port']}"
        assert out["__metrics_path__"] == "/metrics"
    redis_pod = {"__address__": "10.1.2.4:6379", "__meta_kubernetes_pod_label_app_kubernetes_io_name": "redis"}
    assert _relabel(job["relabel_configs"], redis_pod) is None


def test_cluster_note_names_the_hash_tag_and_setting():
    text = Path(DEPLOY / "README.md").read_text()
    assert "TAPIS_CLUSTER=true" in text and "{p<N>}" in text and "tapis:commands:<shard>" in text
