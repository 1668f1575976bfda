package main

import "io"

func genCommand(args []string, stdout, stderr io.Writer) int     { return exitInvalid }
func compareCommand(args []string, stdout, stderr io.Writer) int { return exitInvalid }
