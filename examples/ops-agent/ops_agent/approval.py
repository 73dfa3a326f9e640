"""Human approval for risky operations: the on-call engineer confirms in the terminal."""


def request_approval(action: str) -> bool:
    answer = input(f"Approve '{action}'? [y/N] ")
    return answer.strip().lower() == "y"
