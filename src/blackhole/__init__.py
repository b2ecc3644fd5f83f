"""blackhole: solve, compare and certify deals of the patience game Black Hole."""

__version__ = "0.1.0"
