"""The ground layer: errors, exit codes, environment variables, the time limit, the
version, the optional extras and the one owner of child processes. It imports nothing
else of the package.
"""
