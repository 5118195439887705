"""Secrets in tables, names in other languages, secrets passed to code, password flags by
context (``redaction_tables``, ``redaction_words.yaml``, ``redaction_structured``,
``redaction_shapes``). The cases of each rule are in ``harness/rules/cases/secrets/`` (run by
``test_secret_rules.py``)."""

from __future__ import annotations

import pytest

from harness.security.redaction import redact
from harness.security.redaction_shapes import secret_name
from harness.security.redaction_tables import redact_tables


@pytest.mark.parametrize("name, expected", [
    ("passwort", True), ("Benutzerpasswort", True), ("mot_de_passe", True), ("contraseña", True),
    ("senha", True), ("пароль", True), ("密码", True), ("数据库密码", True), ("パスワード", True),
    ("비밀번호", True), ("salasana", True), ("wachtwoord", True), ("signing_material", True),
    ("clave", "weak"), ("jeton", "weak"), ("ключ", "weak"),
    ("article", False), ("vehicle_body", False), ("benutzer", False), ("password_ttl", False),
])
def test_secret_names_in_other_languages(name: str, expected: bool | str) -> None:
    assert secret_name(name) == expected


def test_a_psql_table_keeps_its_layout_and_other_columns() -> None:
    text = (" id | username |   passwd    \n----+----------+-------------\n"
            "  1 | alice    | Marble#77sky\n  2 | bob      | $PGPASS\n(2 rows)\n")
    out = redact_tables(text)
    assert "Marble#77sky" not in out and "$PGPASS" in out  # a reference stays
    assert out.splitlines()[0] == text.splitlines()[0] and "alice" in out and "(2 rows)" in out


def test_a_table_ends_where_its_rows_end() -> None:
    text = "user,password\nana,Tulip!9043\n\nnotes, Tulip!9044 x\nfree text, key42abc!"
    out = redact_tables(text)
    assert "Tulip!9043" not in out and out.split("\n\n")[1] == text.split("\n\n")[1]


@pytest.mark.parametrize("text", [
    "policy,password_min_length,password_expiry_days\ndefault,12,90",
    "user,password_changed_at\nana,2024-02-11",
    "| Variable | Description |\n|---|---|\n| DB_PASSWORD | `<your-password>` |",
    "key,label\ncolor,Colour\nsize,Size",
    "Material,Plant,Qty\nMAT-000123,DE01,40",  # an ERP material number, not key material
])
def test_tables_about_secrets_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("text, secret", [
    ("redis-cli -h cache.internal -a Pebble42Stream PING", "Pebble42Stream"),
    ("docker login -u ci -p Comet7Falcon registry.example.com", "Comet7Falcon"),
    ("ldapsearch -x -D cn=admin,dc=corp -w Heron!2213 -b dc=corp", "Heron!2213"),
])
def test_password_flags_on_a_command_that_connects_as_someone(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize("text", [
    "mkdir -p release-notes && cp -a src/ build/",
    "ssh -p 2222 deploy@10.0.0.5",
    "ls -a build2 && grep -P 'x\\d+' notes.txt",
    "docker run -p 8080:80 -a stdout nginx",
])
def test_the_same_flags_elsewhere_stay(text: str) -> None:
    assert redact(text) == text
