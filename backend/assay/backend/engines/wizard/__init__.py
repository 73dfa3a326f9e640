"""The wizard engine: law packs, assessments (answers and data), and the jurisdiction controls they decide."""
