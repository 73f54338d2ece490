"""Tests on real RocketMQ servers (name servers and brokers started by harness.py)."""
