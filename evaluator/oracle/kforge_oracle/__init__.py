"""The trusted oracle's modules (evaluator/oracle/oracle.py starts it). Importing the package imports nothing."""
