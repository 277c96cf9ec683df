"""Make and measure: data sets, scene synthesis, training, evaluation and benchmarks.

Nothing a player runs imports this package.
"""
