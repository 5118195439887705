from harness.presets.table import presets_table

print(presets_table())
