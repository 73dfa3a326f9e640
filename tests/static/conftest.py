import sys
from pathlib import Path

# Lets the analyzer tests import their small helper modules (pyfix, jsfix, scanned) by name.
sys.path.insert(0, str(Path(__file__).parent))
