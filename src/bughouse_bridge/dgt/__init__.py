"""The DGT e-board and clock wire protocol, sans-IO: bytes in, typed messages out."""
