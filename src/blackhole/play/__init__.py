"""`blackhole play`: Black Hole, All in a Row and the Golf family in the terminal, with
undo, hints and a coach.

`board` draws (from the deal's game: its fans, its talon, its rules), `session` starts,
saves and reviews games, `engine` is the one door to the hint engine, and `app` is the
Textual interface over them.
"""
