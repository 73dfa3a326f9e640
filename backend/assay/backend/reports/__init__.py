"""Report products bound to one frozen Evaluation: the Master Report and the legacy evidence report."""
