"""Secret redaction: the formats, nested data, run events and tool output."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.security.redaction import redact, redact_data
from harness.state import RunState
from harness.testing import call, scripted

OPENAI = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4"
ANTHROPIC = "sk-ant-api03-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0"
GITHUB = "ghp_" + "A" * 18 + "b" * 18
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabcdef\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("text, secret", [
    (f"key={OPENAI} done", OPENAI),
    (f"ANTHROPIC_API_KEY: {ANTHROPIC}", ANTHROPIC),
    ("Authorization: Bearer eyAbc.defGhijklmnopqrstuvwxyz0123", "eyAbc.defGhijklmnopqrstuvwxyz0123"),
    ('{"api_key": "0123456789abcdefXYZ"}', "0123456789abcdefXYZ"),
    (f"id {AWS_ID}", AWS_ID),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    (f"remote token {GITHUB}", GITHUB),
    (f"before\n{PRIVATE_KEY}\nafter", "MIIEowIBAAKCAQEA7"),
    ("DATABASE_PASSWORD=correct-horse-battery", "correct-horse-battery"),
    ("postgres://app:s3cretpw@127.0.0.1/db", "s3cretpw"),
])
def test_known_secret_formats_are_redacted(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and "[REDACTED" in out


def test_harmless_text_and_names_stay_readable() -> None:
    text = ("model claude-3-5-sonnet-20241022 used MAX_TOKENS=4096; token = make_token(); "
            "git sha a3f8b2c14e7d9f01; never commit secrets")
    assert redact(text) == text


def test_prefixes_are_kept_so_logs_stay_readable() -> None:
    assert redact("GITHUB_TOKEN=abcdefgh12345") == "GITHUB_TOKEN=[REDACTED]"
    assert redact("Bearer abcdefghijklmnopqrstuvwxyz") == "Bearer [REDACTED]"


def test_unterminated_private_key_is_redacted_to_the_end() -> None:
    assert redact("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAB3Nza") == "x\n[REDACTED PRIVATE KEY]"


def test_extra_patterns_and_nested_data() -> None:
    assert redact("ticket INT-12345 opened", [r"INT-\d+"]) == "ticket [REDACTED] opened"
    data = {"a": [f"x {OPENAI}", ("ok", 3)], "b": {"c": GITHUB}, "n": 5}
    out = redact_data(data)
    assert out == {"a": ["x [REDACTED]", ("ok", 3)], "b": {"c": "[REDACTED]"}, "n": 5}


def _state(cfg: HarnessConfig, tmp_path: Path) -> RunState:
    return RunState(cfg, LocalWorkspace(tmp_path), [])


def test_run_events_are_redacted_when_on(tmp_path: Path) -> None:
    on = _state(HarnessConfig(redaction={"enabled": True}), tmp_path)
    event = on.emit("tool.denied", reason=f"curl -H 'Authorization: Bearer {OPENAI}'")
    assert OPENAI not in str(event.data) and OPENAI not in str(on.events)


def test_run_events_keep_secrets_when_off(tmp_path: Path) -> None:
    off = _state(HarnessConfig(), tmp_path)
    assert OPENAI in str(off.emit("x", reason=OPENAI).data)


def _read_env_file(cfg: HarnessConfig, tmp_path: Path):
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={OPENAI}\n")
    model = scripted([call("read_file", path=".env")], "done")
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("read the env file"))


def test_tool_output_is_redacted_for_the_model_when_configured(tmp_path: Path) -> None:
    res = _read_env_file(HarnessConfig(redaction={"enabled": True, "redact_tool_output": True}), tmp_path)
    tool_msg = next(m for m in res.messages if m.role == "tool")
    assert tool_msg.content == "OPENAI_API_KEY=[REDACTED]\n"


def test_tool_output_reaches_the_model_by_default_but_events_stay_clean(tmp_path: Path) -> None:
    res = _read_env_file(HarnessConfig(redaction={"enabled": True}), tmp_path)
    assert OPENAI in next(m for m in res.messages if m.role == "tool").content
    assert OPENAI not in str([e.data for e in res.events])


@pytest.mark.parametrize("name, secret", [
    ("RAILS_MASTER_KEY", True), ("MY_WEIRD_TOKEN", True), ("csrftoken", True),
    ("X-Amz-Signature", True), ("authToken", True), ("PGPASSWORD", True), ("db_pass", True),
    ("TOKEN_COUNT", False), ("api_key_id", False), ("tokenizer", False), ("keyboard", False),
    ("GIT_COMMIT", False), ("Author", False), ("max_tokens", False),
    ("private_key_id", True), ("secret_id", True), ("PublicKey", False),
    ("NEXT_PUBLIC_STRIPE_KEY", False), ("passwordEncoding", False), ("token_ttl", False),
])
def test_secret_names_by_their_parts(name: str, secret: bool) -> None:
    from harness.security.redaction_shapes import secret_name
    assert bool(secret_name(name)) is secret


@pytest.mark.parametrize("value", [
    "3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a", "550e8400-e29b-41d4-a716-446655440000",
    "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+rFTd7LX", "/usr/local/bin",
    "spring_sale_2024", "make_token()", "web-7f9c8d6b5-x2k4p",
])
def test_identifiers_and_words_do_not_look_random(value: str) -> None:
    from harness.security.redaction_shapes import looks_random
    assert not looks_random(value)


def test_a_secret_in_an_unlisted_env_dump_is_redacted_in_run_events(tmp_path: Path) -> None:
    cfg = HarnessConfig(redaction={"enabled": True})
    secret = "Vb7Nm3Kq9Lp2Xw5Zr8Ty1Ui4Oa6Sd0Fg"
    (tmp_path / "env.txt").write_text(f"HOME=/root\nINTERNAL_HMAC={secret}\n")
    model = scripted([call("read_file", path="env.txt")], "done")
    res = asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("t"))
    assert secret not in repr([e.data for e in res.events])


IDENTIFIER_CASES = Path(__file__).parent / "identifier_cases" / "opaque.yaml"


def test_opaque_identifiers_are_not_redacted() -> None:
    """Both controls at once: what compaction must keep verbatim (pods, MACs, ULIDs, build tags,
    instance ids) is not a secret, so the persisted transcript keeps it readable too."""
    import yaml
    cases = [c for c in yaml.safe_load(IDENTIFIER_CASES.read_text()) if c.get("present")]
    changed = {c["id"]: redact(c["text"]) for c in cases if redact(c["text"]) != c["text"]}
    assert len(cases) >= 8 and changed == {}


@pytest.mark.parametrize("text, kept", [
    ("machine h login u password $NETRC_PASSWORD", "$NETRC_PASSWORD"),
    ("postgres://app:{password}@db/app", "{password}"),
    ("curl -u \"$USER:${TOKEN}\" https://x", "${TOKEN}"),
    ("docker run -u 1000:1000 img", "1000:1000"),
    ("ssh -p 2222 host; mkdir -p out/x1; gcc -pthread a.c", "2222"),
    ("THREAD_SET_THREAD_TOKEN = 0x0080", "0x0080"),
    ("_SetLastError = windll.kernel32.SetLastError", "windll.kernel32.SetLastError"),
])
def test_references_and_placeholders_in_credential_positions_stay(text: str, kept: str) -> None:
    assert redact(text) == text and kept in redact(text)


@pytest.mark.parametrize("text, secret", [
    ("redis://:0000@cache:6379", "0000"),
    ("  password  Xq9!vL2m\n", "Xq9!vL2m"),
    ("GET /v1/files/7?expires=1700000000&token=Zq8Lm2Xw9Kp4Tn7R HTTP/1.1", "Zq8Lm2Xw9Kp4Tn7R"),
    ("wget --http-user=ci --http-password=Wq9xLm2Kp4 https://x", "Wq9xLm2Kp4"),
    ("kinit -k -t svc.keytab; vault login -m userpass -t Kq8Zr2Lm9Xw4Vb7Nc3Td", "Kq8Zr2Lm9Xw4Vb7Nc3Td"),
])
def test_secrets_in_credential_positions_are_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_structured_documents_keep_their_keys_and_layout() -> None:
    """Only values go: the model can still read and edit the document."""
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n"
            "  ROUTER_SIGNING: Hx7Lq2Zr5Wm8Nb3Tk7Yp4Vc1\n  notes: |\n    line one\n    line two\n"
            "type: Opaque\n")
    assert redact(text) == ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n"
                            "  ROUTER_SIGNING: [REDACTED]\n  notes: |\n    [REDACTED]\n"
                            "    [REDACTED]\ntype: Opaque\n")


def test_configmap_data_and_secret_metadata_stay() -> None:
    text = ("items:\n- apiVersion: v1\n  data:\n    mode: blue-green\n  kind: ConfigMap\n"
            "- apiVersion: v1\n  data:\n    token: c2VjcmV0LXRva2Vu\n  kind: Secret\n"
            "  metadata:\n    name: api-token-5d8f\n")
    out = redact(text)
    assert "mode: blue-green" in out and "api-token-5d8f" in out
    assert "c2VjcmV0LXRva2Vu" not in out and "    token: [REDACTED]" in out


def test_secret_values_in_kubectl_json_and_its_applied_annotation() -> None:
    import json
    applied = json.dumps({"apiVersion": "v1", "data": {"k": "YWJjZGVmZ2hpams="}, "kind": "Secret"})
    doc = {"apiVersion": "v1", "data": {"k": "YWJjZGVmZ2hpams="}, "kind": "Secret",
           "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": applied},
                        "name": "x"}}
    out = redact(json.dumps(doc, indent=2))
    assert "YWJjZGVmZ2hpams=" not in out and json.loads(out)["metadata"]["name"] == "x"


def test_truncated_escaped_private_key_keeps_the_rest_of_the_json() -> None:
    text = '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEF\\n", "n": 1}'
    assert redact(text) == '{"private_key": "[REDACTED PRIVATE KEY]", "n": 1}'


@pytest.mark.parametrize("text", [
    "pygments = ('ssh2_auth_agent', 'ssh2_auth_hostbased_file', 'ssh2_auth_password')",
    "params['SignatureMethod'] = 'HmacSHA256'",
    "__all__ = [\n    \"ExternalKeyCreateParams\",\n    \"V1OrganizationExternalKeysPostRequestAws\",\n]",
    "api_client_mock.api_key = 'auth_tokens/TEST_AUTH_TOKEN'",
    "auth_user.oauth2_headers = oauth2_headers",
    "resolver_cls = AioS3ExpressIdentityResolver\ntblexer = Python2TracebackLexer",
    "hex_digits = \"0123456789abcdefABCDEF\"",
    "\"footer-key-foreground\": \"#0178D4\",",
    "\"KMSKeyArn\": \"arn:aws:kms:us-west-2:123456789012:key/b0844d6c-xmpl-4463-97a4-d49f50839966\",",
    "    body: V1alpha3DeviceTaintRule,\n# Source: GraphemeBreakProperty-18.0.0.txt",
    "\"S3Bucket\": \"lambda-layers-us-west-2-123456789012\", \"basic\": \"#/components/schemas/KillSwitchAuth\"",
    "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=",
])
def test_code_that_looks_like_pairs_stays(text: str) -> None:
    """False positives once seen on installed packages (benchmarks/redaction_benign.py)."""
    assert redact(text) == text


@pytest.mark.parametrize("template", [
    "upstream:\n  seal: {s}\n", '{{"relay": {{"seal": "{s}"}}}}', "<license>{s}</license>",
    "[x]\nlicense_blob     = {s}\n", "        - name: SIDEKIQ_LICENSE\n          value: {s}\n",
    "app.license={s}",
])
def test_random_values_in_documents_are_redacted_whatever_their_name(template: str) -> None:
    """As for NAME=value: key material under a name no list knows, in any document format."""
    secret = "Vb7Nm3Kq9Lp2Xw5Zr8Ty1Ui4Oa6Sd0FgHj2Kl4"
    assert secret not in redact(template.format(s=secret))


@pytest.mark.parametrize("text, hidden", [
    ("SIDEKIQ_LICENSE=ff691103f41b5f6dd771d0801a3adff3", True),
    ("        - name: VAULT_UNSEAL_SHARE\n          value: ff691103f41b5f6dd771d0801a3adff3", True),
    ("GITHUB_SHA=9c1185a5c5e9fc54612808977ee8f548b2258d31", False),
    ("IMAGE_DIGEST=4bf5c2a1e9d8f7b6a5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2", False),
    ("HOSTNAME=4c01db0b339c", False),
    ("  LINUX_AMD64: 4bf5c2a1e9d8f7b6a5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2", False),
])
def test_long_hex_under_an_environment_variable_name(text: str, hidden: bool) -> None:
    """32+ hex digits in an env var no identifier word names is a key; under *_SHA, *_DIGEST
    or a checksum map's keys it is a digest."""
    assert (redact(text) != text) is hidden
