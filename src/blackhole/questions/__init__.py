"""The questions asked of a position, over the backends: solve (deal, problem, engine,
decode, replay), the best score, hints and the analysis of a line. Each question's
document and exit code, for the command line and the page, is `blackhole.answers`.
"""
