"""Never answers: sleeps a minute."""
import time

time.sleep(60)
