"""The model of the games, from the ground up: cards, the games table, the tableau, deals
and positions, their texts and sources, the rules engine, solution files, positions
reached by moves, and the Problem (a deal as a Hamiltonian path with precedence) that
every engine reads.
"""
