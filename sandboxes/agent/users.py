"""Who a request is for: the container's users as a command runs as them (uid, gid, groups,
``HOME``), and dropping to one in a command's child."""

import os
import pwd

_IDENTITIES = {}  # user name -> Identity (or None: unknown)
_OOM_DOOMED = b"1000"


class Identity:
    """A user of the container as a command runs as it."""

    def __init__(self, entry):
        self.name, self.uid, self.gid = entry.pw_name, entry.pw_uid, entry.pw_gid
        self.home = entry.pw_dir or "/"
        self.groups = os.getgrouplist(entry.pw_name, entry.pw_gid)

    @property
    def is_self(self):
        return self.uid == os.getuid()


def identity(name):
    """The container's user `name` (a name or a uid); None for the agent's own user."""
    if name is None or name == "":
        return None
    if name not in _IDENTITIES:
        try:
            entry = pwd.getpwuid(int(name)) if str(name).isdigit() else pwd.getpwnam(name)
            _IDENTITIES[name] = Identity(entry)
        except (KeyError, ValueError):
            _IDENTITIES[name] = None
    return _IDENTITIES[name]


def _become(who):
    """Runs in a command's child before exec: raise its OOM score to 1000 (while still root:
    a process that changed its uid can no longer write its own /proc files), then become the
    user. The kernel then picks this process, and what it starts (which inherits the score),
    before the sandbox's own when memory runs out."""

    def child():
        try:
            fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
            try:
                os.write(fd, _OOM_DOOMED)
            finally:
                os.close(fd)
        except OSError:
            pass
        os.setgroups(who.groups)
        os.setgid(who.gid)
        os.setuid(who.uid)

    return child


def _user_env(env, who):
    # As `docker exec --user`: HOME from the user's passwd entry, unless the caller sets one.
    if who is not None and not who.is_self:
        env.setdefault("HOME", who.home)
    return env
