console.log('todo-agent cli');
