"""looplab runs spread over a Ray cluster (``looplab run --ray ADDRESS``): ``shards`` plans them
(no Ray), ``driver`` submits and gathers them, ``node`` is what runs on each node, ``standin``
writes the log of a shard that handed none back. Importing this package imports nothing heavy:
Ray is imported by ``driver`` and ``node`` only, which only ``--ray`` reaches."""
