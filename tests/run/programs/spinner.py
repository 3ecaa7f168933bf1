"""Never answers: spins the CPU forever."""
while True:
    pass
