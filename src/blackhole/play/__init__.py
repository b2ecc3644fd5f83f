"""`blackhole play`: Black Hole in the terminal, with undo, hints and a coach.

`board` draws, `session` starts, saves and reviews games, `engine` is the one door to
the hint engine, and `app` is the Textual interface over them.
"""
