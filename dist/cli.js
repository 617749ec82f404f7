#!/usr/bin/env node
var o={};console.log("todo-agent cli");