"""The harness's rules as data: destructive commands, paths, context files, secrets and loops.

Each rule file here lists rules with an id, the seed or real-world failure each comes from
(``source``) and what it matches; ``cases/<set>/<rule id>.yaml`` beside them holds each rule's
cases (``ruleid``: must match, ``ok``: must not). ``python -m harness.security rules`` lists
every rule with its source and case counts. The code that reads them lives with the control
that applies them (``harness/security``, ``harness/controls``).
"""
