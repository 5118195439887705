"""looplab runs spread over a Ray cluster (``looplab run --ray ADDRESS``): ``shards`` plans them
(no Ray), ``driver`` submits and gathers them, ``node`` runs a shard's eval on a node,
``upkeep`` sets a node's sandboxes up and sweeps them, ``standin`` writes the log of a shard that
handed none back, ``local`` starts a loopback cluster on this machine. Importing this package
imports nothing heavy: only ``--ray`` reaches the modules that import Ray."""
