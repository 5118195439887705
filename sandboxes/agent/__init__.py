"""The command agent that runs *inside* a looplab-docker sandbox container (stdlib only).

The provider starts it once per container with one `docker exec` and then sends every command,
file read and file write of the sample over that exec's attached stdin/stdout, instead of paying
a `docker exec` (a runc process start, several engine round trips) for each of them.

Protocol: one JSON object per line each way. Requests carry an `id` and an `op` (`exec`, `read`,
`write`, `rename`, `kill`, `baseline`/`reset` for container reuse, see
sandboxes/docker_reuse.py, and `ask` for the witness, see sandboxes/witness_client.py); binary data travels base64-encoded. Each request but `kill` gets
exactly one reply with the same `id`. The first line the agent prints is `{"ready": ...}`.

The agent runs as root. Each `exec`, `read`, `write` and `rename` names the user it is for
(`user`; none: the agent's own): a command runs as that user (uid, gid, supplementary groups,
`HOME`, as `docker exec --user` gives them), its OOM score raised to 1000 when it is not root (the kernel then kills it, not
the sandbox, when memory runs out), and file operations are done by a child process that has
dropped to that user, so they see exactly what that user's own program would. Each command has
a session of its own and stdin from /dev/null unless input is given: what `docker exec` gives a
command. Start failures answer exit code 126 as `docker exec` does. When stdin closes (the
provider went away or the container is being removed) every running command's process group is
killed.

Its modules are not in the image: the host sends their sources over the exec's stdin, after
``loader.py``'s, which installs them as a package and runs ``main`` (see
sandboxes/docker_agent.py). They keep to the standard library and import nothing from looplab,
only each other: ``wire`` (replies), ``users`` (who a request runs as), ``commands`` (``exec``,
``kill``), ``files`` (``read``, ``write``, ``rename``), ``ask``, ``reuse`` (``baseline``,
``reset``), ``main`` (the loop).
"""
