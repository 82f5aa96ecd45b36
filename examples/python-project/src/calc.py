"""The project's code: what an agent edits."""


def add(a, b):
    return a + b
