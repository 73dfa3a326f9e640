"""Supervisor approval: the supervisor on duty confirms in the terminal."""


def request_approval(question: str) -> bool:
    answer = input(f"{question} [y/N] ")
    return answer.strip().lower() == "y"
