"""The floor's model server, inside a harness's container: answers every request at once with
the answers an eval run gave the same harness, in order (standard library; run by the image's
python3 beside ``model_relay_server.py``, whose HTTP layer it shares).

    python3 floor_server.py ANSWERS.json PORT

ANSWERS.json is a list of the relay's answers (``status``/``headers``/``body`` or ``chunks``);
a request past the end gets the last one. Each request's arrival time (``time.time()``) is
appended to ``ANSWERS.json.times``, one per line.
"""

import asyncio
import json
import sys
import time

import model_relay_server as relay  # beside this file in the container


class Replay(relay.Relay):
    def __init__(self, loop, answers, times):
        super().__init__(loop)
        self.answers = answers
        self.times = times
        self.served = 0

    async def forward(self, method, path, headers, body):
        self.times.write(f"{time.time()}\n")
        self.times.flush()
        answer = self.answers[min(self.served, len(self.answers) - 1)]
        self.served += 1
        return answer


async def main(path, port):
    with open(path, encoding="utf-8") as f:
        answers = json.load(f)
    with open(path + ".times", "a", encoding="utf-8") as times:
        replay = Replay(asyncio.get_running_loop(), answers, times)
        server = await asyncio.start_server(replay.serve, "127.0.0.1", port, limit=relay.MAX_HEAD)
        print("ready", flush=True)
        async with server:
            await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
