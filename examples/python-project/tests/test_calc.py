"""The project's tests: what an agent runs after an edit (pytest, or
python3 -m unittest with src/ on sys.path)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
from calc import add  # noqa: E402


class AddTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)


if __name__ == "__main__":
    unittest.main()
